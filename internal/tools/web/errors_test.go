package web

import (
	"bytes"
	"crypto/rand"
	"fmt"
	"image"
	"image/png"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode/utf8"
)

func TestFetchRefusedConnection(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	res := call(t, Fetch(Options{}), map[string]any{"url": "http://" + addr + "/"})
	if !res.IsError {
		t.Fatal(res.Text)
	}
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "web_fetch could not connect to "+addr+": the connection was refused")
}

// A .invalid name never resolves (RFC 6761); should the sandbox resolver hang rather
// than answer, the short timeout turns the wait into the timeout sentence.
func TestFetchUnknownHost(t *testing.T) {
	res := call(t, Fetch(Options{Timeout: 3 * time.Second}), map[string]any{"url": "https://docs.gantry.invalid/page"})
	if !res.IsError {
		t.Fatal(res.Text)
	}
	wantSentence(t, res.Text)
	dns := strings.Contains(res.Text, "could not find the host docs.gantry.invalid (no such host)") ||
		strings.Contains(res.Text, "could not resolve the host docs.gantry.invalid")
	if !dns && !strings.Contains(res.Text, "(timeout)") {
		t.Errorf("neither a DNS nor a timeout sentence: %s", res.Text)
	}
}

func TestFetchCertificateError(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, "secure hello")
	}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()
	res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL})
	if !res.IsError {
		t.Fatal(res.Text)
	}
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "web_fetch could not make a secure connection to "+strings.TrimPrefix(srv.URL, "https://")+": its certificate is signed by an unknown authority")

	// A client that trusts the test certificate fetches the page.
	res = call(t, Fetch(Options{Client: srv.Client()}), map[string]any{"url": srv.URL})
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantContains(t, res.Text, "secure hello")
}

func TestFetchHTTPSToPlainServer(t *testing.T) {
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	res := call(t, Fetch(Options{Timeout: 5 * time.Second}), map[string]any{"url": strings.Replace(srv.URL, "http://", "https://", 1)})
	wantSentence(t, res.Text)
	wantContains(t, res.Text, "could not make a secure connection")
}

// A 50 MB body is read up to MaxBody and no further: the note says so, the server is
// left with most of its body unsent and the fetch allocates a bounded amount.
func TestFetchCutsHugeBody(t *testing.T) {
	const total = 50 << 20
	var sent atomic.Int64
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		w.Header().Set("Content-Length", fmt.Sprint(total))
		line := bytes.Repeat([]byte("0123456789abcdef"), 4096)
		for n := 0; n < total; n += len(line) {
			m, err := w.Write(line)
			sent.Add(int64(m))
			if err != nil {
				return
			}
		}
	}))
	const limit = 2 << 20
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	res := call(t, Fetch(Options{MaxBody: limit}), map[string]any{"url": srv.URL, "max_chars": 1000})
	runtime.ReadMemStats(&after)
	if res.IsError {
		t.Fatal(res.Text)
	}
	wantContains(t, firstLine(res.Text), "more than 2.1 MB (cut)")
	wantContains(t, res.Text, "[… cut: showing the first", fmt.Sprintf("of %d characters", limit),
		"\n\n[The body went on past 2.1 MB, the most web_fetch reads; the rest was not read.]")
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 12*limit {
		t.Errorf("the fetch allocated %d MB for a %d MB cap", alloc>>20, limit>>20)
	}
	srv.CloseClientConnections()
	if n := sent.Load(); n > total/2 {
		t.Errorf("the server sent %d MB of %d: the body was read past the cap", n>>20, total>>20)
	}
}

func TestFetchDescribesBinary(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 64, 64))
	var pngData bytes.Buffer
	if err := png.Encode(&pngData, img); err != nil {
		t.Fatal(err)
	}
	noise := make([]byte, 300_000)
	rand.Read(noise)
	srv := serve(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/pixel.png":
			w.Header().Set("Content-Type", "image/png")
			w.Write(pngData.Bytes())
		case "/blob":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Write(noise)
		case "/lying.txt":
			w.Header().Set("Content-Type", "text/plain")
			w.Write(append([]byte("ab\x00\x01"), noise...))
		}
	}))
	cases := map[string]string{
		"/pixel.png": fmt.Sprintf("This is binary content (image/png, %s), not shown", byteSize(int64(pngData.Len()))),
		"/blob":      "This is binary content (application/octet-stream, 300.0 KB), not shown",
		"/lying.txt": "This is binary content (text/plain, 300.0 KB), not shown",
	}
	for path, want := range cases {
		res := call(t, Fetch(Options{}), map[string]any{"url": srv.URL + path})
		if res.IsError {
			t.Fatalf("%s: %s", path, res.Text)
		}
		wantContains(t, res.Text, want)
		if !utf8.ValidString(res.Text) || len(res.Text) > 400 {
			t.Errorf("%s: %d bytes of output, valid UTF-8 %v", path, len(res.Text), utf8.ValidString(res.Text))
		}
	}
}

func TestFetchRefusesBadArguments(t *testing.T) {
	f := Fetch(Options{})
	cases := map[string]string{
		`{}`:                                                      `web_fetch needs the argument "url", which is missing.`,
		`{"url":""}`:                                              `web_fetch needs a URL in "url", which is empty.`,
		`{"url":"ftp://example.com/f"}`:                           `web_fetch fetches only http and https URLs; "ftp://example.com/f" uses ftp.`,
		`{"url":"file:///etc/passwd"}`:                            `web_fetch fetches only http and https URLs; "file:///etc/passwd" uses file.`,
		`{"url":"example.com/docs"}`:                              `web_fetch needs a full URL with its scheme; "example.com/docs" has none (did you mean "https://example.com/docs"?).`,
		`{"url":"http://"}`:                                       `web_fetch: "http://" has no host name; give a full address such as https://example.com/page.`,
		`{"url":"http://exa mple.com/"}`:                          `web_fetch: "http://exa mple.com/" is not a valid URL (invalid character " " in host name); give a full address such as https://example.com/page.`,
		`{"url":"http://example.com:99999/"}`:                     `web_fetch: "http://example.com:99999/" has an invalid port (99999); a port is a number from 1 to 65535.`,
		`{"url":"https://e.com","extract_mode":"html"}`:           `web_fetch: argument "extract_mode" must be one of "markdown", "text", not "html".`,
		`{"url":"https://e.com","max_chars":0}`:                   `web_fetch: argument "max_chars" must be at least 1, not 0.`,
		`{"url":"https://e.com","max_chars":500000}`:              `web_fetch: argument "max_chars" must be at most 200000, not 500000.`,
		`{"url":"https://e.com","headers":["X-A: b"]}`:            `web_fetch: argument "headers" must be an object, not an array.`,
		`{"url":"https://e.com","headers":{"Bad Name":"x"}}`:      `web_fetch: "Bad Name" is not a valid header name; use letters, digits and - only.`,
		`{"url":"https://e.com","headers":{"X-A":"a\r\nX-B: b"}}`: `web_fetch: the value of header "X-A" must be one line, without line breaks.`,
		`{"url":"https://e.com","authorization":"a\nb"}`:          `web_fetch: authorization must be one line, without line breaks.`,
		`{"url":42}`: `web_fetch: argument "url" must be a string, not a number.`,
	}
	for raw, want := range cases {
		got := refusal(t, f, raw)
		if got != want {
			t.Errorf("%s:\n got %s\nwant %s", raw, got, want)
		}
		if got != "" {
			wantSentence(t, got)
		}
	}
}
