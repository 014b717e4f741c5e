package tui

import (
	"charm.land/lipgloss/v2"
)

// styles are the looks of the UI; with colour off every style is plain text.
type styles struct {
	color                  bool
	dim, bold, accent      lipgloss.Style
	added, removed, warn   lipgloss.Style
	user, status, selected lipgloss.Style
	box                    lipgloss.Style
}

func newStyles(color bool) styles {
	plain := lipgloss.NewStyle()
	if !color {
		box := plain.Border(lipgloss.NormalBorder()).Padding(0, 1)
		return styles{dim: plain, bold: plain, accent: plain, added: plain, removed: plain, warn: plain,
			user: plain, status: plain, selected: plain, box: box}
	}
	return styles{
		color:    true,
		dim:      plain.Faint(true),
		bold:     plain.Bold(true),
		accent:   plain.Foreground(lipgloss.Color("#7aa2f7")).Bold(true),
		added:    plain.Foreground(lipgloss.Color("#9ece6a")),
		removed:  plain.Foreground(lipgloss.Color("#f7768e")),
		warn:     plain.Foreground(lipgloss.Color("#e0af68")),
		user:     plain.Foreground(lipgloss.Color("#bb9af7")).Bold(true),
		status:   plain.Faint(true),
		selected: plain.Foreground(lipgloss.Color("#7aa2f7")).Bold(true),
		box:      plain.Border(lipgloss.RoundedBorder()).BorderForeground(lipgloss.Color("#7aa2f7")).Padding(0, 1),
	}
}

// r renders s in st unless colour is off.
func (s styles) r(st lipgloss.Style, text string) string {
	if !s.color {
		return text
	}
	return st.Render(text)
}
