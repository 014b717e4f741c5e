package search

import "testing"

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
