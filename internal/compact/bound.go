package compact

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Bounding the summary request. Token counts are estimated from characters, on the
// safe side (code and JSON run near three characters a token); the request may fill
// three quarters of the model's window, less the summary's room.
const (
	charsPerToken = 3
	windowShare   = 0.75
	// unknownWindow is assumed for a model whose context window is not known.
	unknownWindow = 128_000
	// What an old piece keeps when it is cut, in characters (runes).
	keepResult = 2000
	keepCall   = 1000
	keepText   = 4000
)

// budget returns how many characters of transcript a summary request for model may
// carry.
func budget(model string) int {
	w := llm.ContextWindow(model)
	if w <= 0 {
		w = unknownWindow
	}
	return (int(float64(w)*windowShare) - MaxSummaryTokens) * charsPerToken
}

// cuts counts what bound took out.
type cuts struct {
	pieces  int // pieces cut in the middle
	dropped int // turns dropped whole
}

// note tells the model what is missing from the transcript; "" when nothing is.
func (c cuts) note() string {
	var parts []string
	if c.pieces > 0 {
		parts = append(parts, fmt.Sprintf("%d of the oldest tool results, tool inputs or messages were cut in the middle, each marked where it was cut", c.pieces))
	}
	if c.dropped > 0 {
		parts = append(parts, fmt.Sprintf("%d early turns after the first message were left out, marked where they were", c.dropped))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Note: the conversation was too long to send whole, so " + strings.Join(parts, ", and ") + ". Summarise what is there; say that earlier details were cut where it matters, and do not guess at them."
}

// bound makes the transcript fit max characters, oldest first, in steps that lose
// ever more: tool results cut to their head and tail, then tool inputs, then the
// messages themselves (but for the first, which states the goal), and at last whole
// turns dropped after the first (never the last). The turns are copied before any
// change. The result may still exceed max when the first or last turn alone does.
func bound(turns []turn, max int) ([]turn, cuts) {
	var c cuts
	total := size(turns)
	if total <= max {
		return turns, c
	}
	out := make([]turn, len(turns))
	for i, t := range turns {
		out[i] = turn{role: t.role, pieces: append([]piece(nil), t.pieces...)}
	}
	for _, step := range []struct {
		kind kind
		keep int
	}{{kindResult, keepResult}, {kindCall, keepCall}, {kindText, keepText}} {
		for i := range out {
			for j := range out[i].pieces {
				if total <= max {
					return out, c
				}
				p := &out[i].pieces[j]
				if p.kind != step.kind || (i == 0 && j == 0 && p.kind == kindText) {
					continue
				}
				if cut, ok := middleOut(p.body, step.keep); ok {
					total -= len(p.body) - len(cut)
					p.body = cut
					c.pieces++
				}
			}
		}
	}
	// Drop whole turns after the first, in pairs so that roles keep alternating, and
	// say where they were.
	drop := 0
	for total+len(dropped(drop+2)) > max && 1+drop+2 < len(out) {
		total -= size(out[1+drop : 1+drop+2])
		drop += 2
	}
	if drop > 0 {
		c.dropped = drop
		rest := out[1+drop:]
		out = append(out[:1:1], rest...)
		out[0].pieces = append(out[0].pieces, piece{kind: kindText, head: dropped(drop)})
	}
	return out, c
}

// dropped marks where n turns were dropped.
func dropped(n int) string {
	return fmt.Sprintf("[%d turns were left out here to fit the summary request.]", n)
}

// size is the characters (bytes, an upper bound) of the transcript.
func size(turns []turn) int {
	n := 0
	for _, t := range turns {
		for _, p := range t.pieces {
			n += len(p.head) + len(p.body) + len(p.tail)
		}
	}
	return n
}

// middleOut keeps the head and tail of s, keep runes in all, with a line saying what
// was cut; false when s is short enough already.
func middleOut(s string, keep int) (string, bool) {
	n := utf8.RuneCountInString(s)
	if n <= keep {
		return s, false
	}
	head := keep * 2 / 3
	tail := keep - head
	hb := byteOffset(s, head)
	tb := byteOffset(s, n-tail)
	return s[:hb] + fmt.Sprintf("\n[… %d of %d characters cut from the middle of this old part to fit the summary request …]\n", n-keep, n) + s[tb:], true
}

// byteOffset returns the byte offset of the rune at index r of s.
func byteOffset(s string, r int) int {
	i := 0
	for k := range s {
		if i == r {
			return k
		}
		i++
	}
	return len(s)
}
