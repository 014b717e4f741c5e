package tui

import (
	"strings"

	"github.com/gantry-dev/gantry/internal/ui/mdterm"
)

// markdown renders the model's text with gantry's own renderer (package mdterm:
// goldmark and lipgloss, no templates, no package-level tables); its output has no
// blank lines around it and no trailing spaces.
type markdown struct{ color bool }

func newMarkdown(color bool) *markdown { return &markdown{color: color} }

// render returns text rendered for width columns ("" for blank text).
func (m *markdown) render(text string, width int) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	return mdterm.Render(text, mdterm.Options{Width: width, Color: m.color})
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
