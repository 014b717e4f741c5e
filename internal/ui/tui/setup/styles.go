package setup

import "charm.land/lipgloss/v2"

// styles are the looks of the setup; with colour off every style is plain text.
type styles struct {
	color                         bool
	title, accent, dim, warn, key lipgloss.Style
}

func newStyles(color bool) styles {
	plain := lipgloss.NewStyle()
	if !color {
		return styles{title: plain, accent: plain, dim: plain, warn: plain, key: plain}
	}
	accent := lipgloss.Color("#7aa2f7") // the terminal UI's accent
	return styles{
		color:  true,
		title:  plain.Foreground(accent).Bold(true),
		accent: plain.Foreground(accent).Bold(true),
		dim:    plain.Faint(true),
		warn:   plain.Foreground(lipgloss.Color("#e0af68")),
		key:    plain.Bold(true),
	}
}

// r renders text in st, or returns it as it is when colour is off.
func (s styles) r(st lipgloss.Style, text string) string {
	if !s.color || text == "" {
		return text
	}
	return st.Render(text)
}
