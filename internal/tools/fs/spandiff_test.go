package fs

import (
	"math/rand"
	"slices"
	"strings"
	"testing"
)

func TestSpanDiffRebuildsBothTexts(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	words := []string{"a", "b", "c", "\n", "\n", "xy", "\n"}
	for n := 0; n < 20000; n++ {
		var sb strings.Builder
		for k := r.Intn(40); k > 0; k-- {
			sb.WriteString(words[r.Intn(len(words))])
		}
		full := sb.String()
		var spans []span
		at := 0
		for at < len(full) && r.Intn(3) > 0 {
			start := at + r.Intn(len(full)-at+1)
			end := start + r.Intn(len(full)-start+1)
			if r.Intn(4) == 0 {
				end = start
			}
			var repl strings.Builder
			for k := r.Intn(6); k > 0; k-- {
				repl.WriteString(words[r.Intn(len(words))])
			}
			spans = append(spans, span{start: start, end: end, repl: repl.String()})
			at = end + 1
		}
		updated := applySpans(full, spans)
		lines := spanDiff(full, spans)
		checkDiff(t, splitLines(full), splitLines(updated), lines)
		var olds, news []string
		for _, d := range lines {
			if d.op != '+' {
				olds = append(olds, d.text)
			}
			if d.op != '-' {
				news = append(news, d.text)
			}
		}
		if !slices.Equal(olds, splitLines(full)) || !slices.Equal(news, splitLines(updated)) {
			t.Fatalf("the diff's lines are not the texts' lines: %q %+v\n%+v", full, spans, lines)
		}
		a, d, _ := diffStats(lines)
		wa, wd, _ := diffStats(lineDiff(splitLines(full), splitLines(updated)))
		if a+d < wa+wd {
			t.Fatalf("span diff shorter than the minimal diff? %q %+v -> %q: %d+%d vs %d+%d\n%+v", full, spans, updated, a, d, wa, wd, lines)
		}
	}
}
