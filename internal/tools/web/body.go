package web

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html/charset"
)

// kind is what web_fetch does with a body.
type kind int

const (
	kindText   kind = iota // passed through
	kindHTML               // converted to Markdown or text
	kindBinary             // described, not read further
)

// body is what was read of a response.
type body struct {
	data      []byte // the bytes read, at most the cap (nothing for binary content)
	text      string // data decoded to UTF-8 (text and HTML only)
	mediaType string // the media type used: declared, or sniffed when none was useful
	declared  string // the Content-Type header as sent
	sniffed   bool   // mediaType comes from the content, not the header
	kind      kind
	cut       bool  // the body went on past the cap
	limit     int64 // the cap
	length    int64 // Content-Length, or -1
}

// sniffLen is how much of a body decides its kind (as http.DetectContentType reads).
const sniffLen = 512

// readBody reads at most limit bytes of resp.Body. Binary content is recognised from
// its first bytes and read no further.
func readBody(resp *http.Response, limit int64) (*body, error) {
	b := &body{declared: resp.Header.Get("Content-Type"), limit: limit, length: resp.ContentLength}
	head := make([]byte, min(int64(sniffLen), limit))
	n, err := io.ReadFull(resp.Body, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, err
	}
	more := err == nil
	b.classify(head)
	if b.kind == kindBinary {
		b.data = head
		if more && b.length < 0 { // count what is left, up to the cap, to give a size
			rest, err := io.Copy(io.Discard, io.LimitReader(resp.Body, limit-int64(n)+1))
			if err != nil {
				return nil, err
			}
			b.length = int64(n) + rest
			b.cut = b.length > limit
		}
		return b, nil
	}
	var buf bytes.Buffer
	grow := limit
	if resp.ContentLength >= 0 && resp.ContentLength < limit {
		grow = resp.ContentLength
	}
	buf.Grow(int(min(grow, 1<<20)) + 1)
	buf.Write(head)
	if more {
		if _, err := buf.ReadFrom(io.LimitReader(resp.Body, limit-int64(n)+1)); err != nil {
			return nil, err
		}
	}
	b.data = buf.Bytes()
	if int64(len(b.data)) > limit {
		b.data, b.cut = b.data[:limit], true
	}
	b.text = decode(b.data, b.declared, b.kind == kindHTML)
	return b, nil
}

// classify sets the media type and kind from the header, or from the first bytes
// when the header says nothing useful; text that holds NUL bytes is binary.
func (b *body) classify(head []byte) {
	mt, _, err := mime.ParseMediaType(b.declared)
	if err != nil {
		mt = ""
	}
	switch mt {
	case "", "application/octet-stream", "binary/octet-stream", "application/unknown", "unknown/unknown":
		if len(head) > 0 {
			declared := mt
			mt, _, _ = mime.ParseMediaType(http.DetectContentType(head))
			b.sniffed = mt != declared
		}
	}
	if mt == "" {
		mt = "application/octet-stream"
	}
	b.mediaType = mt
	switch {
	case mt == "text/html" || mt == "application/xhtml+xml":
		b.kind = kindHTML
	case textual(mt):
		b.kind = kindText
	default:
		b.kind = kindBinary
		return
	}
	if bytes.IndexByte(head, 0) >= 0 && !utf16BOM(head) {
		b.kind = kindBinary
	}
}

// textual reports whether a media type is text web_fetch can pass through.
func textual(mt string) bool {
	if strings.HasPrefix(mt, "text/") || strings.HasSuffix(mt, "+json") || strings.HasSuffix(mt, "+xml") {
		return true
	}
	switch mt {
	case "application/json", "application/xml", "application/javascript", "application/ecmascript",
		"application/x-javascript", "application/yaml", "application/x-yaml", "application/toml",
		"application/x-sh", "application/sql", "application/graphql", "application/x-ndjson",
		"application/csv", "application/x-www-form-urlencoded", "application/x-tex", "application/x-python":
		return true
	}
	return false
}

func utf16BOM(b []byte) bool {
	return bytes.HasPrefix(b, []byte{0xFF, 0xFE}) || bytes.HasPrefix(b, []byte{0xFE, 0xFF})
}

// decode turns data into UTF-8 by its charset (declared, in a BOM, or for HTML in a
// <meta> tag); invalid sequences, such as a character cut at the cap, become U+FFFD.
func decode(data []byte, contentType string, isHTML bool) string {
	if !isHTML && utf8.Valid(data) && !utf16BOM(data) {
		return string(data)
	}
	if !isHTML {
		if _, params, err := mime.ParseMediaType(contentType); err != nil || params["charset"] == "" {
			return strings.ToValidUTF8(string(data), "\uFFFD")
		}
	}
	enc, name, _ := charset.DetermineEncoding(data, contentType)
	if name == "utf-8" || enc == nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return strings.ToValidUTF8(string(out), "\uFFFD")
}

// size describes how big the body is, as far as it is known.
func (b *body) size() string {
	switch {
	case b.cut:
		return "more than " + byteSize(b.limit) + " (cut)"
	case b.kind == kindBinary && b.length >= 0:
		return byteSize(b.length)
	case b.kind == kindBinary:
		return "size not given"
	default:
		return byteSize(int64(len(b.data)))
	}
}

// summary is the short note a face shows for a fetch.
func (b *body) summary() string { return b.mediaType + ", " + b.size() }

// byteSize writes n bytes for a person: 512 bytes, 12.3 KB, 4.0 MB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d bytes", n)
	case n < 1000*1000:
		return fmt.Sprintf("%.1f KB", float64(n)/1000)
	case n < 1000*1000*1000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	default:
		return fmt.Sprintf("%.1f GB", float64(n)/1e9)
	}
}
