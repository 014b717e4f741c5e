package fs

// The diff compared with github.com/aymanbagabas/go-udiff (docs/tools.md, "Libraries
// measured").

import (
	"strings"
	"testing"

	udiff "github.com/aymanbagabas/go-udiff"
)

func BenchmarkDiffTextUdiff(b *testing.B) {
	for _, c := range diffInputs() {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var d string
			for b.Loop() {
				d = udiff.Unified("a/big.go", "b/big.go", string(c.in.old), string(c.in.new))
			}
			b.ReportMetric(float64(strings.Count(d, "\n")), "difflines")
		})
	}
}
