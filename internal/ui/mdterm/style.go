package mdterm

import (
	"strings"
	"sync"

	"charm.land/lipgloss/v2"
)

// style is a set of text attributes and a colour, packed in a small integer
// so that styled pieces of text compare cheaply.
type style uint16

const (
	bold style = 1 << iota
	italic
	strike
	underline
	faint
	colorShift = iota
)

// Colours, in the Tokyo Night palette of the rest of the terminal UI.
const (
	cAccent style = (iota + 1) << colorShift
	cCode
	cLink
	cKeyword
	cString
	cNumber
	cComment
	cType
	cFunc
	cTag
	cAttr
	cAdded
	cRemoved
	cHunk
	cMarker
	colorMask style = 0xf << colorShift
)

var palette = [...]string{
	cAccent >> colorShift:  "#7aa2f7",
	cCode >> colorShift:    "#ff9e64",
	cLink >> colorShift:    "#7dcfff",
	cKeyword >> colorShift: "#bb9af7",
	cString >> colorShift:  "#9ece6a",
	cNumber >> colorShift:  "#ff9e64",
	cComment >> colorShift: "#565f89",
	cType >> colorShift:    "#2ac3de",
	cFunc >> colorShift:    "#7aa2f7",
	cTag >> colorShift:     "#f7768e",
	cAttr >> colorShift:    "#e0af68",
	cAdded >> colorShift:   "#9ece6a",
	cRemoved >> colorShift: "#f7768e",
	cHunk >> colorShift:    "#7dcfff",
	cMarker >> colorShift:  "#7aa2f7",
}

// sgr holds the escape sequences that turn a style on and off, made with
// lipgloss on first use of each style.
var sgr [1 << 9]struct {
	once     sync.Once
	pre, suf string
}

// codes returns the sequences that start and end text in style st.
func codes(st style) (pre, suf string) {
	e := &sgr[st]
	e.once.Do(func() {
		s := lipgloss.NewStyle()
		if st&bold != 0 {
			s = s.Bold(true)
		}
		if st&italic != 0 {
			s = s.Italic(true)
		}
		if st&strike != 0 {
			s = s.Strikethrough(true)
		}
		if st&underline != 0 {
			s = s.Underline(true)
		}
		if st&faint != 0 {
			s = s.Faint(true)
		}
		if c := st & colorMask; c != 0 {
			s = s.Foreground(lipgloss.Color(palette[c>>colorShift]))
		}
		out := s.Render("x")
		if i := strings.IndexByte(out, 'x'); i >= 0 {
			e.pre, e.suf = out[:i], out[i+1:]
		}
	})
	return e.pre, e.suf
}

// paint returns s in style st, or s itself without colour.
func paint(s string, st style, color bool) string {
	if !color || st == 0 || strings.TrimLeft(s, " ") == "" {
		return s
	}
	pre, suf := codes(st)
	return pre + s + suf
}
