package mdterm

import (
	"os"
	"testing"
)

// BenchmarkRender renders an answer of about 5 KB with prose, lists, a
// table and code blocks in three languages.
func BenchmarkRender(b *testing.B) {
	src, err := os.ReadFile("testdata/answer.md")
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name  string
		color bool
	}{{"color", true}, {"plain", false}} {
		b.Run(bc.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			b.ReportAllocs()
			for b.Loop() {
				Render(string(src), Options{Width: 100, Color: bc.color})
			}
		})
	}
}

func BenchmarkHighlight(b *testing.B) {
	src, err := os.ReadFile("highlight.go")
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		highlight("go", string(src))
	}
}
