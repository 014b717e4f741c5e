package search

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The benchmarks run the tools in-process over the Go sources, as bench/search.sh
// compares them (as whole processes) with rg -l and fdfind -e go.

func benchGrep(b *testing.B, args A) {
	src := gorootSrc(b)
	args["path"] = src
	args["head_limit"] = 1000000
	for b.Loop() {
		if r := call(b, Grep(testOpts), src, args); r.IsError {
			b.Fatal(r.Text)
		}
	}
}

func BenchmarkGrepLiteral(b *testing.B) { benchGrep(b, A{"pattern": "func main"}) }
func BenchmarkGrepIgnoreCase(b *testing.B) {
	benchGrep(b, A{"pattern": "FUNC MAIN", "ignore_case": true})
}
func BenchmarkGrepRegexLiteral(b *testing.B) { benchGrep(b, A{"pattern": `func \w+Handler`}) }
func BenchmarkGrepInnerLiteral(b *testing.B) { benchGrep(b, A{"pattern": `\w+_test\(`}) }
func BenchmarkGrepNoLiteral(b *testing.B)    { benchGrep(b, A{"pattern": `\bx[0-9]{2}[a-z]`}) }
func BenchmarkGrepContent(b *testing.B) {
	benchGrep(b, A{"pattern": "errors.New", "output_mode": "content"})
}

func BenchmarkGlob(b *testing.B) {
	src := gorootSrc(b)
	for b.Loop() {
		if r := call(b, Glob(testOpts), src, A{"pattern": "**/*.go", "path": src, "limit": 1000000}); r.IsError {
			b.Fatal(r.Text)
		}
	}
}
func BenchmarkGrepDate(b *testing.B) {
	benchGrep(b, A{"pattern": `[0-9]{4}-[0-9]{2}-[0-9]{2}`})
}

// BenchmarkGrepHugeFiles searches two 200 MB files, one of 80-byte lines and one that is
// a single line, in every mode, for a match near the start, in the middle, near the end
// and for none. peak-RSS-MB is the peak resident memory of the process during the
// sub-benchmark (Linux; 0 elsewhere): it stays far below the files' size. bench/grepmem.sh
// measures the same as whole processes, beside rg.
func BenchmarkGrepHugeFiles(b *testing.B) {
	if testing.Short() {
		b.Skip("writes two 200 MB files")
	}
	dir := b.TempDir()
	const size = 200 << 20
	writeLines(b, filepath.Join(dir, "lines.txt"), size)
	writeOneLine(b, filepath.Join(dir, "oneline.txt"), size)
	for _, file := range []string{"lines.txt", "oneline.txt"} {
		for _, pattern := range []string{"needle_start", "needle_middle", "needle_end", "absent"} {
			for _, mode := range []A{
				{"output_mode": "files_with_matches"}, {"output_mode": "count"},
				{"output_mode": "content"}, {"output_mode": "content", "context": 2},
			} {
				args := A{"pattern": pattern, "path": file}
				name := file + "/" + pattern + "/" + mode["output_mode"].(string)
				for k, v := range mode {
					args[k] = v
				}
				if mode["context"] != nil {
					name += "-C2"
				}
				b.Run(name, func(b *testing.B) {
					resetPeakRSS()
					b.SetBytes(size)
					for b.Loop() {
						r := call(b, Grep(testOpts), dir, args)
						if r.IsError || strings.HasPrefix(r.Text, "No matches") != (pattern == "absent") {
							b.Fatal(r.Text)
						}
					}
					b.ReportMetric(float64(peakRSS())/(1<<20), "peak-RSS-MB")
				})
			}
		}
	}
}

// resetPeakRSS resets the process's peak resident memory, where Linux lets it.
func resetPeakRSS() { _ = os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) }

// peakRSS is the process's peak resident memory in bytes since resetPeakRSS, or 0.
func peakRSS() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(v, "kB")), 10, 64)
			return kb << 10
		}
	}
	return 0
}
