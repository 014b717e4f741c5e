package fs

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"golang.org/x/image/bmp"

	"github.com/gantry-dev/gantry/internal/tool"
)

func numberedLines(n int) string {
	var sb strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&sb, "line %d\n", i)
	}
	return sb.String()
}

func TestReadFile_MissingFile(t *testing.T) {
	d := t.TempDir()
	r := call(t, ReadFile(testOpts), d, A{"path": "sub/nope.txt"})
	wantError(t, r)
	if r.Text != "sub/nope.txt does not exist. Create it with write_file" {
		t.Fatalf("got %q", r.Text)
	}
}

func TestReadFile_WholeFile(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "alpha\nbeta\n")
	r := call(t, ReadFile(testOpts), d, A{"path": "a.txt"})
	wantOK(t, r)
	if r.Text != "alpha\nbeta\n" {
		t.Fatalf("got %q", r.Text)
	}
}

func TestReadFile_AbsolutePath(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "a.txt", "x\n")
	r := call(t, ReadFile(testOpts), t.TempDir(), A{"path": p})
	wantOK(t, r)
	if r.Text != "x\n" {
		t.Fatalf("got %q", r.Text)
	}
}

func TestReadFile_FinalNewlineOnlyAtEnd(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "1\n2\n3\n")
	writeTestFile(t, d, "b.txt", "1\n2\n3")
	cases := []struct {
		path       string
		start, end int
		want       string
	}{
		{"a.txt", 1, 2, "1\n2"},      // the end of the file is not shown
		{"a.txt", 2, 2, "2"},         // a middle line
		{"a.txt", 2, 0, "2\n3\n"},    // to the end: the final newline is kept
		{"a.txt", 2, 3, "2\n3\n"},    // end is the last line
		{"a.txt", 3, 99, "3\n"},      // end past the last line
		{"a.txt", 0, 0, "1\n2\n3\n"}, // everything
		{"b.txt", 0, 0, "1\n2\n3"},   // a file without final newline gets none
		{"b.txt", 2, 0, "2\n3"},
		{"b.txt", 1, 1, "1"},
	}
	for _, c := range cases {
		r := call(t, ReadFile(testOpts), d, A{"path": c.path, "start": c.start, "end": c.end})
		wantOK(t, r)
		if r.Text != c.want {
			t.Errorf("%s %d–%d: got %q, want %q", c.path, c.start, c.end, r.Text, c.want)
		}
	}
}

func TestReadFile_Numbered(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", numberedLines(12))
	r := call(t, ReadFile(testOpts), d, A{"path": "a.txt", "start": 9, "end": 10, "numbered": true})
	wantOK(t, r)
	if r.Text != "     9\tline 9\n    10\tline 10" {
		t.Fatalf("got %q", r.Text)
	}
}

func TestReadFile_TruncatedToMaxOutput(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", numberedLines(500))
	const limit = 1000
	rf := ReadFile(Options{MaxOutput: limit})
	r := call(t, rf, d, A{"path": "a.txt"})
	wantOK(t, r)
	if n := utf8.RuneCountInString(r.Text); n > limit {
		t.Fatalf("output has %d characters, over %d", n, limit)
	}
	i := strings.Index(r.Text, "Continue with start=")
	if i < 0 {
		t.Fatalf("no continuation hint in %q", r.Text)
	}
	var next int
	fmt.Sscanf(r.Text[i:], "Continue with start=%d", &next)
	if !strings.Contains(r.Text, fmt.Sprintf("line %d\n[Output stopped after line %d", next-1, next-1)) {
		t.Fatalf("the hint does not follow line %d: %q", next-1, r.Text[i-80:])
	}
	// Following the hint continues exactly where the output stopped.
	r2 := call(t, rf, d, A{"path": "a.txt", "start": next})
	if !strings.HasPrefix(r2.Text, fmt.Sprintf("line %d\n", next)) {
		t.Fatalf("continuing at %d gives %q", next, r2.Text[:40])
	}
}

func TestReadFile_LongLineCut(t *testing.T) {
	d := t.TempDir()
	long := strings.Repeat("é", 600_000) // 1.2 MB on one line
	writeTestFile(t, d, "a.txt", "first\n"+long+"\nlast\n")
	r := call(t, ReadFile(testOpts), d, A{"path": "a.txt"})
	wantOK(t, r)
	if !utf8.ValidString(r.Text) {
		t.Fatal("the cut split a character")
	}
	if !strings.Contains(r.Text, "[line 2 cut: ") || !strings.Contains(r.Text, "of 1200000 bytes shown]") {
		t.Fatalf("no cut notice: %q", r.Text[len(r.Text)-120:])
	}
	if !strings.HasPrefix(r.Text, "first\n") || !strings.HasSuffix(r.Text, "\nlast\n") {
		t.Fatalf("lines around the long one are lost")
	}
	if len(r.Text) > 10_000 {
		t.Fatalf("output is %d bytes", len(r.Text))
	}
}

func TestReadFile_StartPastEnd(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", numberedLines(7))
	r := call(t, ReadFile(testOpts), d, A{"path": "a.txt", "start": 8})
	wantError(t, r, "a.txt has only 7 lines", "start=8")
}

func TestReadFile_EndBeforeStart(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", numberedLines(7))
	r := call(t, ReadFile(testOpts), d, A{"path": "a.txt", "start": 5, "end": 3})
	wantError(t, r, "end (3) is before start (5)")
}

func TestReadFile_EmptyFile(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "e.txt", "")
	r := call(t, ReadFile(testOpts), d, A{"path": "e.txt"})
	wantOK(t, r)
	if r.Text != "e.txt is empty (0 bytes)." {
		t.Fatalf("got %q", r.Text)
	}
}

func TestReadFile_Directory(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "sub/x.go", "")
	os.Mkdir(filepath.Join(d, "sub", "inner"), 0o755)
	r := call(t, ReadFile(testOpts), d, A{"path": "sub"})
	wantError(t, r, "sub is a directory", "x.go", "inner/")
}

func TestReadFile_NonRegularFile(t *testing.T) {
	d := t.TempDir()
	fifo := filepath.Join(d, "pipe")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	// Opening a FIFO without a writer blocks forever; the tool must not try.
	done := make(chan tool.Result, 1)
	go func() { done <- call(t, ReadFile(testOpts), d, A{"path": "pipe"}) }()
	select {
	case r := <-done:
		wantError(t, r, "pipe is a named pipe", "not a regular file")
	case <-time.After(5 * time.Second):
		t.Fatal("read_file hung on a FIFO")
	}
	r := call(t, ReadFile(testOpts), d, A{"path": "/dev/zero"})
	wantError(t, r, "/dev/zero is a character device")
}

func TestReadFile_Binary(t *testing.T) {
	d := t.TempDir()
	data := append([]byte("\x7fELF\x02\x01\x01"), make([]byte, 3000)...)
	os.WriteFile(filepath.Join(d, "prog"), data, 0o755)
	r := call(t, ReadFile(testOpts), d, A{"path": "prog"})
	wantError(t, r, "prog is a binary file (2.9 KB, application/octet-stream)")
	if strings.Count(r.Text, "\n") != 0 {
		t.Fatalf("not one line: %q", r.Text)
	}
	os.WriteFile(filepath.Join(d, "latin1.txt"), []byte("caf\xe9 cr\xe8me\n"), 0o644)
	r = call(t, ReadFile(testOpts), d, A{"path": "latin1.txt"})
	wantError(t, r, "latin1.txt is a binary file (11 bytes, text/plain)")
}

func TestReadFile_UTF8RuneAcrossSniffBoundary(t *testing.T) {
	d := t.TempDir()
	// "é" is 2 bytes; with an odd prefix one of them straddles byte 8192.
	content := "x" + strings.Repeat("é", 6000) + "\n"
	writeTestFile(t, d, "a.txt", content)
	r := call(t, ReadFile(Options{MaxOutput: 100000}), d, A{"path": "a.txt"})
	wantOK(t, r)
}

func pngBytes(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for x := 0; x < w; x++ {
		img.Set(x, 0, color.NRGBA{R: uint8(x), G: 100, B: 200, A: 255})
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func TestReadFile_Image(t *testing.T) {
	d := t.TempDir()
	data := pngBytes(t, 40, 30)
	os.WriteFile(filepath.Join(d, "pic.dat"), data, 0o644) // detected by content, not name
	r := call(t, ReadFile(testOpts), d, A{"path": "pic.dat"})
	wantOK(t, r)
	if len(r.Images) != 1 || r.Images[0].MediaType != "image/png" || !bytes.Equal(r.Images[0].Data, data) {
		t.Fatalf("images: %+v", r.Images)
	}
	if !strings.Contains(r.Text, "PNG image, 40×30 pixels") || !strings.Contains(r.Display.Note, "40×30") {
		t.Fatalf("text %q note %q", r.Text, r.Display.Note)
	}
}

func TestReadFile_ImageDownscaled(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "wide.png"), pngBytes(t, 9000, 20), 0o644)
	r := call(t, ReadFile(testOpts), d, A{"path": "wide.png"})
	wantOK(t, r)
	if len(r.Images) != 1 {
		t.Fatalf("no image: %q", r.Text)
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(r.Images[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Width != 8000 || cfg.Height != 17 {
		t.Fatalf("sent %d×%d", cfg.Width, cfg.Height)
	}
	if !strings.Contains(r.Text, "9000×20") || !strings.Contains(r.Text, "8000×17") || !strings.Contains(r.Display.Note, "→") {
		t.Fatalf("text %q note %q", r.Text, r.Display.Note)
	}
}

func TestReadFile_ImageBMPConverted(t *testing.T) {
	d := t.TempDir()
	var buf bytes.Buffer
	bmp.Encode(&buf, image.NewRGBA(image.Rect(0, 0, 16, 8)))
	os.WriteFile(filepath.Join(d, "a.bmp"), buf.Bytes(), 0o644)
	r := call(t, ReadFile(testOpts), d, A{"path": "a.bmp"})
	wantOK(t, r)
	if len(r.Images) != 1 || r.Images[0].MediaType == "image/bmp" {
		t.Fatalf("BMP not converted: %+v %q", r.Images, r.Text)
	}
	if _, _, err := image.DecodeConfig(bytes.NewReader(r.Images[0].Data)); err != nil {
		t.Fatalf("converted image does not decode: %v", err)
	}
}

func TestReadFile_CorruptImage(t *testing.T) {
	d := t.TempDir()
	os.WriteFile(filepath.Join(d, "bad.png"), []byte("\x89PNG\r\n\x1a\ngarbage"), 0o644)
	r := call(t, ReadFile(testOpts), d, A{"path": "bad.png"})
	wantError(t, r, "bad.png starts like a PNG image but cannot be decoded")
}

// TestReadFile_HugeSparseFile reads a range near the start of a 1 GB sparse file (text
// first, then holes) and a range of a file of holes only, without loading either.
func TestReadFile_HugeSparseFile(t *testing.T) {
	d := t.TempDir()
	p := writeTestFile(t, d, "big.log", numberedLines(20000))
	if err := os.Truncate(p, 1<<30); err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := call(t, ReadFile(testOpts), d, A{"path": "big.log", "start": 10000, "end": 10002})
	runtime.ReadMemStats(&after)
	wantOK(t, r)
	if r.Text != "line 10000\nline 10001\nline 10002" {
		t.Fatalf("got %q", r.Text)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
		t.Fatalf("reading 3 lines allocated %d bytes", alloc)
	}
	holes := filepath.Join(d, "holes")
	os.WriteFile(holes, nil, 0o644)
	os.Truncate(holes, 1<<30)
	r = call(t, ReadFile(testOpts), d, A{"path": "holes"})
	wantError(t, r, "holes is a binary file (1.0 GB")
}

func TestReadFile_MalformedArgs(t *testing.T) {
	d := t.TempDir()
	rf := ReadFile(testOpts)
	for raw, want := range map[string]string{
		`{}`:                           `"path"`,
		`{"path": 3}`:                  `"path" must be a string`,
		`{"path": "a", "start": -1}`:   `"start" must be at least 0`,
		`{"path": "a", "end": "two"}`:  `"end" must be a number`,
		`{"path": ""}`:                 `"path", which is empty`,
		`[1]`:                          `must be a JSON object`,
		`{"path": "a", "numbered": 1}`: `"numbered" must be true or false`,
	} {
		r := callRaw(t, rf, d, raw)
		wantError(t, r, want)
	}
}

func TestReadFile_KindAndLocation(t *testing.T) {
	d := t.TempDir()
	rf := ReadFile(testOpts)
	if rf.Name() != "read_file" || rf.Level() != tool.LevelRead || rf.Kind() != tool.KindRead {
		t.Fatalf("%s %v %v", rf.Name(), rf.Level(), rf.Kind())
	}
	inv, msg := rf.Decode(tool.Env{Cwd: d}, []byte(`{"path":"x/y.txt"}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if inv.Principal != "x/y.txt" || len(inv.Paths) != 1 || inv.Paths[0] != filepath.Join(d, "x/y.txt") {
		t.Fatalf("principal %q paths %v", inv.Principal, inv.Paths)
	}
}

func TestReadFile_Cancelled(t *testing.T) {
	d := t.TempDir()
	writeTestFile(t, d, "a.txt", "x\n")
	inv, _ := ReadFile(testOpts).Decode(tool.Env{Cwd: d}, []byte(`{"path":"a.txt"}`))
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	wantError(t, inv.Run(ctx), "cancelled")
}
