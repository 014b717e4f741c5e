package tui

import (
	"strings"

	"github.com/gantry-dev/gantry/internal/ui/mdterm"
)

// markdown renders the model's text with gantry's own renderer (package mdterm:
// goldmark and lipgloss, no templates, no package-level tables).
type markdown struct{ color bool }

func newMarkdown(color bool) *markdown { return &markdown{color: color} }

// render returns text rendered for width columns, without blank lines around it.
func (m *markdown) render(text string, width int) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return trimBlankLines(mdterm.Render(text, mdterm.Options{Width: max(width, 20), Color: m.color}))
}

// trimBlankLines drops the blank lines at both ends and the trailing spaces of each line.
func trimBlankLines(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[0])) == "" {
		lines = lines[1:]
	}
	for len(lines) > 0 && strings.TrimSpace(stripANSI(lines[len(lines)-1])) == "" {
		lines = lines[:len(lines)-1]
	}
	return strings.Join(lines, "\n")
}

// stripANSI removes escape sequences (to test a line for blankness).
func stripANSI(s string) string {
	if !strings.Contains(s, "\x1b") {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '[' {
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			i = j
			continue
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// settle splits streamed text into what is settled — whole paragraphs outside code
// fences, which will not change as more text arrives — and the rest, still growing.
func settle(text string) (settled, rest string) {
	inFence := false
	cut := -1
	pos := 0
	for pos < len(text) {
		end := strings.IndexByte(text[pos:], '\n')
		if end < 0 {
			break // the last line is still growing
		}
		line := text[pos : pos+end]
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~") {
			inFence = !inFence
		}
		pos += end + 1
		if !inFence && t == "" && strings.TrimSpace(text[:pos]) != "" {
			cut = pos
		}
	}
	if cut < 0 {
		return "", text
	}
	return text[:cut], text[cut:]
}
