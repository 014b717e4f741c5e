package tui

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// hangWrap breaks a line for the scrollback at word boundaries to width (a word
// longer than the width where it must), the rows after the first starting under
// column hang, so that a long line never wraps to column 0 in the middle of a word
// (as the terminal would wrap it).
func hangWrap(l string, width, hang int) []string {
	if width < 20 || ansi.StringWidth(l) <= width {
		return []string{l}
	}
	hang = min(hang, width/2)
	lines := strings.Split(ansi.Wrap(l, width, ""), "\n")
	if len(lines) <= 1 {
		return lines
	}
	rest := strings.Split(ansi.Wrap(strings.Join(lines[1:], " "), width-hang, ""), "\n")
	pad := strings.Repeat(" ", hang)
	out := []string{lines[0]}
	for _, r := range rest {
		out = append(out, pad+r)
	}
	return out
}

// indentOf is how many blanks a line starts with.
func indentOf(l string) int {
	plain := ansi.Strip(l)
	return len(plain) - len(strings.TrimLeft(plain, " "))
}

// personShellLines bounds the preview of a command the person typed (!command): all
// of its output is theirs to read, up to this many lines.
const personShellLines = 500
