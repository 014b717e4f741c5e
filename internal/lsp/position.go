package lsp

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"go.lsp.dev/protocol"
)

// Positions are UTF-16 offsets, LSP's default, which every server accepts.

// Lines splits text into its lines, without their line ends.
func Lines(text string) []string {
	ls := strings.Split(text, "\n")
	if len(ls) > 0 && ls[len(ls)-1] == "" {
		ls = ls[:len(ls)-1]
	}
	for i, l := range ls {
		ls[i] = strings.TrimSuffix(l, "\r")
	}
	return ls
}

// Locate finds symbol on line (1-based) of text and returns the position of its first
// character: the first occurrence as a whole word, else the first occurrence. problem
// is a sentence for the model when the line or the symbol is not there.
func Locate(text string, line int, symbol, shown string) (protocol.Position, string) {
	ls := Lines(text)
	l := ""
	if line >= 1 && line <= len(ls) {
		l = ls[line-1]
	}
	return LocateOnLine(l, len(ls), line, symbol, shown)
}

// LocateOnLine is Locate given the text of the line (l) and the file's count of
// lines (n).
func LocateOnLine(l string, n, line int, symbol, shown string) (protocol.Position, string) {
	if line < 1 || line > n {
		return protocol.Position{}, fmt.Sprintf("%s has %d lines; line %d is past its end.", shown, n, line)
	}
	i := wordIndex(l, symbol)
	if i < 0 {
		return protocol.Position{}, fmt.Sprintf("%q is not on line %d of %s, which reads: %s", symbol, line, shown, strings.TrimSpace(l))
	}
	return protocol.Position{Line: uint32(line - 1), Character: utf16Len(l[:i])}, ""
}

// wordIndex is the byte index of the first whole-word occurrence of sym in l, else of
// its first occurrence, else -1.
func wordIndex(l, sym string) int {
	first := -1
	for off := 0; off <= len(l); {
		j := strings.Index(l[off:], sym)
		if j < 0 {
			break
		}
		j += off
		if first < 0 {
			first = j
		}
		before, _ := utf8.DecodeLastRuneInString(l[:j])
		after, _ := utf8.DecodeRuneInString(l[j+len(sym):])
		if !isWord(before) && !isWord(after) {
			return j
		}
		off = j + 1
	}
	return first
}

func isWord(r rune) bool {
	return r != utf8.RuneError && (r == '_' || unicode.IsLetter(r) || unicode.IsDigit(r))
}

func utf16Len(s string) uint32 {
	n := 0
	for _, r := range s {
		n += utf16.RuneLen(r)
	}
	return uint32(n)
}

// Offset is the byte offset in text of an LSP position (clamped to the line's end
// and the text's end).
func Offset(text string, p protocol.Position) int {
	off := 0
	for range p.Line {
		i := strings.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	end := strings.IndexByte(text[off:], '\n')
	if end < 0 {
		end = len(text) - off
	}
	line := text[off : off+end]
	units := uint32(0)
	for i, r := range line {
		if units >= p.Character {
			return off + i
		}
		units += uint32(utf16.RuneLen(r))
	}
	return off + len(line)
}

// Apply applies edits (non-overlapping, positions in text as it is) to text.
func Apply(text string, edits []protocol.TextEdit) (string, error) {
	type span struct {
		lo, hi int
		s      string
	}
	spans := make([]span, len(edits))
	for i, e := range edits {
		spans[i] = span{Offset(text, e.Range.Start), Offset(text, e.Range.End), e.NewText}
		if spans[i].hi < spans[i].lo {
			return "", fmt.Errorf("edit %d ends before it starts", i)
		}
	}
	// Stable by start: edits inserted at one point keep their order.
	for i := 1; i < len(spans); i++ {
		for j := i; j > 0 && spans[j].lo < spans[j-1].lo; j-- {
			spans[j], spans[j-1] = spans[j-1], spans[j]
		}
	}
	var b strings.Builder
	at := 0
	for _, s := range spans {
		if s.lo < at {
			return "", fmt.Errorf("edits overlap at byte %d", s.lo)
		}
		b.WriteString(text[at:s.lo])
		b.WriteString(s.s)
		at = s.hi
	}
	b.WriteString(text[at:])
	return b.String(), nil
}
