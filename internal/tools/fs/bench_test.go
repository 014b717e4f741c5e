package fs

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// benchFileSize reads GANTRY_BENCH_BIGFILE ("2G", "512M", "100000000"); the default keeps
// the normal suite fast. To measure the 2 GB case:
//
//	GANTRY_BENCH_BIGFILE=2G go test -run '^$' -bench ReadFileRange -benchmem ./internal/tools/fs/
func benchFileSize(b *testing.B) int64 {
	s := strings.ToUpper(strings.TrimSpace(os.Getenv("GANTRY_BENCH_BIGFILE")))
	if s == "" {
		return 16 << 20
	}
	mult := int64(1)
	switch {
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, strings.TrimSuffix(s, "G")
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, strings.TrimSuffix(s, "M")
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, strings.TrimSuffix(s, "K")
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n <= 0 {
		b.Fatalf("GANTRY_BENCH_BIGFILE=%q is not a size", os.Getenv("GANTRY_BENCH_BIGFILE"))
	}
	return n * mult
}

// writeLog writes size bytes of 100-byte numbered lines and returns their count.
func writeLog(b *testing.B, path string, size int64) int {
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	pad := strings.Repeat("x", 85) // 14 + 85 + 1 = 100 bytes a line
	lines := int(size / 100)
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(w, "%09d log %s\n", i, pad)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	return lines
}

// BenchmarkReadFileRange reads 51 lines around line 1,000,000 (or the middle of a smaller
// file) of a generated log.
func BenchmarkReadFileRange(b *testing.B) {
	dir := b.TempDir()
	lines := writeLog(b, filepath.Join(dir, "big.log"), benchFileSize(b))
	start := min(1_000_000, lines/2)
	rf := ReadFile(testOpts)
	args := A{"path": "big.log", "start": start, "end": start + 50}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		r := call(b, rf, dir, args)
		if r.IsError || !strings.HasPrefix(r.Text, fmt.Sprintf("%09d ", start)) {
			b.Fatalf("got %.80q", r.Text)
		}
	}
}

// BenchmarkEditFile20 applies 20 edits to a 50,000-line file, written atomically.
func BenchmarkEditFile20(b *testing.B) {
	dir := b.TempDir()
	var sb strings.Builder
	for i := 1; i <= 50_000; i++ {
		fmt.Fprintf(&sb, "\tvalue%05d := compute(%d) // line %d\n", i, i, i)
	}
	original := sb.String()
	p := filepath.Join(dir, "big.go")
	var edits []A
	for k := range 20 {
		i := 1 + k*2500
		edits = append(edits, A{"old": fmt.Sprintf("compute(%d) //", i), "new": fmt.Sprintf("computeFast(%d, true) //", i)})
	}
	ef := EditFile(testOpts)
	args := A{"path": "big.go", "edits": edits}
	b.ReportAllocs()
	for b.Loop() {
		b.StopTimer()
		if err := os.WriteFile(p, []byte(original), 0o644); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if r := call(b, ef, dir, args); r.IsError {
			b.Fatal(r.Text)
		}
	}
}

// diffInput is a pair of texts for the diff benchmarks.
type diffInput struct{ old, new []byte }

// genCode returns n distinct lines of Go-like code.
func genCode(n int, format string) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = fmt.Sprintf(format, i+1, i+1, i+1)
	}
	return out
}

// scatter changes k lines spread evenly over lines.
func scatter(lines []string, k int) []string {
	out := append([]string(nil), lines...)
	for j := range k {
		i := j*len(lines)/k + len(lines)/(2*k)
		out[i] = strings.Replace(out[i], "compute(", "computeFast(", 1)
	}
	return out
}

func diffInputs() []struct {
	name string
	in   diffInput
} {
	code := genCode(50_000, "\tvalue%05d := compute(%d) // line %d\n")
	other := genCode(50_000, "\tother%05d := unrelated(%d) /* %d */\n")
	big := genCode(100_000, "%09d log "+strings.Repeat("x", 72)+" %06d %06d\n") // 10 MB
	big1 := append([]string(nil), big...)
	big1[len(big)/2] = "a changed line\n"
	in := func(a, b []string) diffInput {
		return diffInput{[]byte(strings.Join(a, "")), []byte(strings.Join(b, ""))}
	}
	return []struct {
		name string
		in   diffInput
	}{
		{"50k-lines-20-changes", in(code, scatter(code, 20))},
		{"50k-lines-200-changes", in(code, scatter(code, 200))},
		{"50k-lines-all-changed", in(code, other)},
		{"10MB-1-change", in(big, big1)},
	}
}

// BenchmarkDiffText is the diff write_file and apply_patch show (edit_file diffs only
// the lines its edits touch, see spanDiff); difflines is the size of the diff.
func BenchmarkDiffText(b *testing.B) {
	for _, c := range diffInputs() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var d string
			for b.Loop() {
				d = DiffText("big.go", c.in.old, c.in.new)
			}
			b.ReportMetric(float64(strings.Count(d, "\n")), "difflines")
		})
	}
}
