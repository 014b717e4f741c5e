package tui

import (
	"strings"

	"charm.land/glamour/v2"
)

// markdown renders the model's text. Renderers are made once per width.
type markdown struct {
	style string
	width int
	r     *glamour.TermRenderer
}

func newMarkdown(color bool) *markdown {
	style := "dark"
	if !color {
		style = "notty"
	}
	return &markdown{style: style}
}

// render returns text rendered for width columns, without the blank lines glamour
// puts around it; plain text when it cannot render.
func (m *markdown) render(text string, width int) string {
	if strings.TrimSpace(text) == "" {
		return ""
	}
	width = max(width-2, 20)
	if m.r == nil || m.width != width {
		r, err := glamour.NewTermRenderer(glamour.WithStandardStyle(m.style), glamour.WithWordWrap(width))
		if err != nil {
			return strings.TrimSpace(text)
		}
		m.r, m.width = r, width
	}
	out, err := m.r.Render(text)
	if err != nil {
		return strings.TrimSpace(text)
	}
	return trimBlankLines(out)
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
