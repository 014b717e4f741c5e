package tui

import (
	"fmt"
	"strings"

	tea "charm.land/bubbletea/v2"
)

// pickItem is one row of a picker: what it stands for, how it shows, and the text
// the filter searches (the label when empty).
type pickItem struct {
	value, label, search string
}

// pickerDialog is a list to choose one item from (/resume's sessions, /model's
// models): typing filters it (every word typed must be in the row), ↑↓ move, enter
// picks, esc closes. It shows a window of the rows around the cursor, so that a long
// list fits the pane.
type pickerDialog struct {
	title, help string
	items       []pickItem
	filter      string
	shown       []int // the items the filter keeps, in order
	at          int   // in shown
	empty       string
	pick        func(m *Model, it pickItem)
}

func newPicker(title string, items []pickItem, at int, pick func(m *Model, it pickItem)) *pickerDialog {
	d := &pickerDialog{title: title, items: items, pick: pick, empty: "nothing matches the filter"}
	d.refilter()
	d.at = min(max(at, 0), max(len(d.shown)-1, 0))
	return d
}

// refilter keeps the items whose text holds every word of the filter, case aside.
func (d *pickerDialog) refilter() {
	words := strings.Fields(strings.ToLower(d.filter))
	d.shown = d.shown[:0]
	for i, it := range d.items {
		text := it.search
		if text == "" {
			text = it.label
		}
		text = strings.ToLower(text)
		ok := true
		for _, w := range words {
			ok = ok && strings.Contains(text, w)
		}
		if ok {
			d.shown = append(d.shown, i)
		}
	}
	d.at = min(d.at, max(len(d.shown)-1, 0))
}

func (d *pickerDialog) key(m *Model, k tea.KeyPressMsg) bool {
	switch s := k.String(); s {
	case "esc":
		return true
	case "enter":
		if len(d.shown) == 0 {
			return false
		}
		d.pick(m, d.items[d.shown[d.at]])
		return true
	case "up", "shift+tab", "ctrl+p":
		if n := len(d.shown); n > 0 {
			d.at = (d.at + n - 1) % n
		}
	case "down", "tab", "ctrl+n":
		if n := len(d.shown); n > 0 {
			d.at = (d.at + 1) % n
		}
	case "pgup":
		d.at = max(d.at-d.room(m), 0)
	case "pgdown":
		d.at = min(d.at+d.room(m), max(len(d.shown)-1, 0))
	case "backspace":
		if r := []rune(d.filter); len(r) > 0 {
			d.filter = string(r[:len(r)-1])
			d.refilter()
		}
	case "ctrl+u":
		d.filter = ""
		d.refilter()
	default:
		if k.Text != "" {
			d.filter += k.Text
			d.at = 0
			d.refilter()
		}
	}
	return false
}

func (d *pickerDialog) paste(text string) {
	d.filter += strings.Join(strings.Fields(text), " ")
	d.at = 0
	d.refilter()
}

func (d *pickerDialog) cancel() {}

// room is how many rows the list shows: what the pane leaves for it, at most 12.
func (d *pickerDialog) room(m *Model) int { return max(min(m.height-12, 12), 3) }

func (d *pickerDialog) view(m *Model) string {
	body := []string{"filter: " + d.filter + "▏", ""}
	room := d.room(m)
	from := 0
	if d.at >= room {
		from = d.at - room + 1
	}
	to := min(from+room, len(d.shown))
	if from > 0 {
		body = append(body, m.st.r(m.st.dim, fmt.Sprintf("  ↑ %d more", from)))
	}
	for i := from; i < to; i++ {
		label := clip(d.items[d.shown[i]].label, dialogWidth(m)-2)
		if i == d.at {
			body = append(body, m.st.r(m.st.selected, "› "+label))
		} else {
			body = append(body, "  "+label)
		}
	}
	if more := len(d.shown) - to; more > 0 {
		body = append(body, m.st.r(m.st.dim, fmt.Sprintf("  ↓ %d more", more)))
	}
	if len(d.shown) == 0 {
		body = append(body, m.st.r(m.st.dim, "  "+d.empty))
	}
	help := d.help
	if help == "" {
		help = "type to filter · ↑↓ choose · enter pick · esc close"
	}
	return frame(m, d.title, body, help)
}
