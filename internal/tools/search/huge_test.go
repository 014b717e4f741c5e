package search

import (
	"bufio"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
)

// tinyChunks makes the read buffer chunk bytes, allowed to grow to grown, for the rest
// of the test.
func tinyChunks(t *testing.T, chunk, grown int) {
	oldChunk, oldMax := chunkSize, maxLineBuf
	chunkSize, maxLineBuf = chunk, grown
	t.Cleanup(func() { chunkSize, maxLineBuf = oldChunk, oldMax })
}

// tinyCorpus writes files of some ten KB whose lines are of every length (many
// far longer than the tiny chunks, some longer than maxLineLen), some ending with \r,
// some holding multi-byte characters, with matches of the queries below anywhere.
func tinyCorpus(t *testing.T, dir string) {
	rng := rand.New(rand.NewPCG(1, 2))
	words := []string{"needle", "NeEdLe", "the", "quick", "brown_end", "x42y", "2024-05-06", "日本語", "é", "foo", "bar", " ", "\t", "needle_end", "k", "s"}
	line := func(max int) string {
		var b strings.Builder
		for n := rng.IntN(max); b.Len() < n; {
			b.WriteString(words[rng.IntN(len(words))])
			if rng.IntN(3) == 0 {
				b.WriteString(strings.Repeat("z", rng.IntN(40)))
			}
		}
		if rng.IntN(10) == 0 {
			b.WriteString("\r")
		}
		return b.String()
	}
	files := map[string]string{}
	for i := range 4 {
		var b strings.Builder
		for range 60 + rng.IntN(60) {
			switch rng.IntN(20) {
			case 0:
				b.WriteString(line(3000)) // past maxLineLen and every tiny chunk
			case 1:
				b.WriteString("") // an empty line
			default:
				b.WriteString(line(90))
			}
			b.WriteString("\n")
		}
		if i%2 == 1 {
			b.WriteString(line(700)) // no line break at the end
		}
		files[fmt.Sprintf("f%d.txt", i)] = b.String()
	}
	// long lines that match `foo$` only once their \r is dropped, shown as context
	files["cr.txt"] = strings.Repeat(strings.Repeat("a", 600)+"foo\r\nb foo\nc\n"+strings.Repeat("é", 300)+"foo\r\n", 20)
	files["late-nul.txt"] = files["f0.txt"] + "needle\x00\n" + files["f1.txt"]
	files["one-line.txt"] = strings.Repeat("abc ", 2000) + "needle_end " + strings.Repeat("é", 1000) + " 2024-05-06"
	writeFiles(t, dir, files)
}

var tinyQueries = []A{
	{"pattern": "needle"},
	{"pattern": "needle", "ignore_case": true},
	{"pattern": "needle_end"},
	{"pattern": `needle\w*`},
	{"pattern": `[a-z]+_end\b`},
	{"pattern": `^the`},
	{"pattern": `foo$`},
	{"pattern": `\r$`},
	{"pattern": "foo\r"}, // shown cut around its match only if it matches without the \r
	{"pattern": `[0-9]{4}-[0-9]{2}-[0-9]{2}`},
	{"pattern": `x[0-9]{2}y`},
	{"pattern": `foo|bar`},
	{"pattern": `\bx[0-9]{2}`},
	{"pattern": `日本`},
	{"pattern": `é+ `},
	{"pattern": `q.*k`},
	{"pattern": `absent`},
}

// TestGrepTinyChunks: with read buffers of a few bytes, so that most lines are read
// through as long lines (past any buffer) and matches straddle every boundary, every
// mode says exactly what it says when each file fits in one buffer.
func TestGrepTinyChunks(t *testing.T) {
	dir := t.TempDir()
	tinyCorpus(t, dir)
	type run struct {
		args A
		path string
	}
	var runs []run
	for _, q := range tinyQueries {
		for _, mode := range []A{
			{"output_mode": "files_with_matches"}, {"output_mode": "count"},
			{"output_mode": "content"}, {"output_mode": "content", "context": 3},
		} {
			for _, path := range []string{".", "one-line.txt"} {
				args := A{"path": path}
				for k, v := range q {
					args[k] = v
				}
				for k, v := range mode {
					args[k] = v
				}
				runs = append(runs, run{args, path})
			}
		}
	}
	opts := Options{MaxOutput: 1 << 30}
	want := make([]string, len(runs))
	for i, r := range runs {
		want[i] = call(t, Grep(opts), dir, r.args).Text
	}
	// 610: a line of cr.txt (605 bytes) ends the chunk, and the next one's match shows it
	// from the lines kept
	for _, size := range [][2]int{{7, 7}, {16, 64}, {610, 610}, {1000, 4000}} {
		t.Run(fmt.Sprintf("chunk %d grown to %d", size[0], size[1]), func(t *testing.T) {
			tinyChunks(t, size[0], size[1])
			for i, r := range runs {
				if got := call(t, Grep(opts), dir, r.args).Text; got != want[i] {
					t.Fatalf("%v:\n%s\nwant\n%s", r.args, head(got), head(want[i]))
				}
			}
		})
	}
}

func head(s string) string {
	if len(s) > 3000 {
		return s[:3000] + "…"
	}
	return s
}

// TestGrepOutputBound: a file whose every line matches renders only what can be shown,
// and the output is what the whole rendering would be, cut, with its closing line,
// all within the bound.
func TestGrepOutputBound(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": strings.Repeat("match me\nnot this one\n", 20000)})
	full := call(t, Grep(Options{MaxOutput: 1 << 30}), dir, A{"pattern": "match", "output_mode": "content", "context": 1}).Text
	const maxOut = 1000
	got := call(t, Grep(Options{MaxOutput: maxOut}), dir, A{"pattern": "match", "output_mode": "content", "context": 1}).Text
	// The closing line counts in the bound: the lines shown leave room for it.
	const note = "\n[output cut: 20,000 lines in 1 file match in all; narrow the pattern, path or glob, or raise head_limit]"
	var b strings.Builder
	for _, l := range strings.SplitAfter(full, "\n") {
		if b.Len()+len(l) > maxOut-len(note)+1 {
			break
		}
		b.WriteString(l)
	}
	want := strings.TrimSuffix(b.String(), "\n") + note
	if got != want || len(got) > maxOut {
		t.Fatalf("got\n%s\nwant\n%s", got, want)
	}
}

// TestGrepBinaryNamed: a binary file named by path is said to be binary, with whether
// it matches (anywhere, NUL bytes or not); walked, it is skipped silently.
func TestGrepBinaryNamed(t *testing.T) {
	dir := t.TempDir()
	tinyChunks(t, 64, 64) // the NUL byte comes chunks after the start
	text := strings.Repeat("some text here\n", 20)
	writeFiles(t, dir, map[string]string{
		"d/before.bin": "x needle\n" + text + "\x00\n",
		"d/after.bin":  text + "\x00 y\n" + text + "zz needle zz\n",
		"d/long.bin":   strings.Repeat("a", 1000) + "\x00" + strings.Repeat("b", 1000) + "needle",
		"d/none.bin":   text + "\x00",
		"d/text.txt":   "needle\n",
	})
	for _, c := range []struct{ path, want string }{
		{"d/before.bin", "d/before.bin is a binary file (311 bytes, with a NUL byte at offset 309); grep skips binary files, but `needle` matches in it (first at byte offset 2)."},
		{"d/after.bin", "d/after.bin is a binary file (617 bytes, with a NUL byte at offset 300); grep skips binary files, but `needle` matches in it (first at byte offset 607)."},
		{"d/long.bin", "d/long.bin is a binary file (2,007 bytes, with a NUL byte at offset 1,000); grep skips binary files, but `needle` matches in it (first at byte offset 2,001)."},
		{"d/none.bin", "d/none.bin is a binary file (301 bytes, with a NUL byte at offset 300); grep skips binary files, and `needle` does not match in it anyway."},
	} {
		for _, mode := range []string{"files_with_matches", "count", "content"} {
			r := call(t, Grep(testOpts), dir, A{"pattern": "needle", "path": c.path, "output_mode": mode})
			wantOK(t, r)
			if r.Text != c.want {
				t.Errorf("%s %s:\n got %s\nwant %s", c.path, mode, r.Text, c.want)
			}
		}
	}
	for _, mode := range []string{"files_with_matches", "count", "content"} {
		r := call(t, Grep(testOpts), dir, A{"pattern": "needle", "path": "d", "output_mode": mode})
		if want := map[string]string{"files_with_matches": "d/text.txt", "count": "d/text.txt:1", "content": "d/text.txt:1:needle"}[mode]; r.Text != want {
			t.Errorf("walked, %s: got %q, want %q", mode, r.Text, want)
		}
	}
}

// TestGrepLongLineBoundedMemory: a file of one line many times the read buffer is
// searched in every mode, the match found wherever it lies, with allocations far below
// the file's size.
func TestGrepLongLineBoundedMemory(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 24 MB file")
	}
	dir := t.TempDir()
	const size = 24 << 20
	p := filepath.Join(dir, "one.txt")
	writeOneLine(t, p, size)
	for _, c := range []struct {
		args A
		want string
	}{
		{A{"pattern": "needle_end"}, "one.txt"},
		{A{"pattern": "needle_e.d", "output_mode": "count"}, "one.txt:1"},
		{A{"pattern": "needle_middle", "output_mode": "content", "context": 2}, "one.txt:1:[… " + strconv.Itoa(1000+14+(size-14-15-12-1-2000)/2+1-100) + " characters cut] "},
		{A{"pattern": "absent", "output_mode": "content"}, "No matches for `absent` in one.txt."},
	} {
		c.args["path"] = "one.txt"
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		r := call(t, Grep(testOpts), dir, c.args)
		runtime.ReadMemStats(&after)
		wantOK(t, r)
		if !strings.HasPrefix(r.Text, c.want) || len(r.Text) > 700 {
			t.Errorf("%v: %q", c.args, head(r.Text))
		}
		if n := after.TotalAlloc - before.TotalAlloc; n > 12<<20 {
			t.Errorf("%v: %d MB allocated for a %d MB file", c.args, n>>20, size>>20)
		}
	}
}

const filler = "the quick brown fox jumps over the lazy dog; 0123456789 abcdefghijklmnopqrstuvw" // 79 bytes

// writeOneLine writes a file of size bytes in one line (and its line break) with
// needle_start near its start, needle_middle in the middle and needle_end near its end.
func writeOneLine(tb testing.TB, path string, size int) {
	writeBig(tb, path, size, func(w *bufio.Writer, n int) {
		for ; n >= len(filler); n -= len(filler) {
			w.WriteString(filler)
		}
		w.WriteString(filler[:n])
	}, " needle_start ", " needle_middle ", " needle_end ", "\n")
}

// writeLines writes a file of size bytes of 80-byte lines with the same needles.
func writeLines(tb testing.TB, path string, size int) {
	writeBig(tb, path, size, func(w *bufio.Writer, n int) {
		for ; n >= len(filler)+1; n -= len(filler) + 1 {
			w.WriteString(filler)
			w.WriteByte('\n')
		}
		w.WriteString(filler[:n])
	}, "needle_start\n", "needle_middle\n", "needle_end\n", "")
}

func writeBig(tb testing.TB, path string, size int, fill func(*bufio.Writer, int), start, middle, end, last string) {
	tb.Helper()
	f, err := os.Create(path)
	if err != nil {
		tb.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	third := (size - len(start) - len(middle) - len(end) - len(last) - 2000) / 2
	fill(w, 1000)
	w.WriteString(start)
	fill(w, third)
	w.WriteString(middle)
	fill(w, third)
	w.WriteString(end)
	fill(w, 1000)
	w.WriteString(last)
	if err := w.Flush(); err != nil {
		tb.Fatal(err)
	}
	if err := f.Close(); err != nil {
		tb.Fatal(err)
	}
}

// A matching line of 600 UTF-8 continuation bytes has no rune start to cut at: it is
// shown cut, not a panic.
func TestGrepCutWithoutRuneStart(t *testing.T) {
	dir := t.TempDir()
	writeFiles(t, dir, map[string]string{"a.txt": strings.Repeat("\x80", 600) + "\n"})
	r := call(t, Grep(testOpts), dir, A{"pattern": ".", "output_mode": "content"})
	if r.Text != "a.txt:1: [… 600 more characters cut]" {
		t.Fatalf("%q", r.Text)
	}
}
