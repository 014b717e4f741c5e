package tui

import "fmt"

// openModelPicker is /model with no name: the configured models (models.good,
// models.fast), Claude Code's aliases with Anthropic and the provider's known
// models, the current one marked and under the cursor; enter switches to one.
func (m *Model) openModelPicker() {
	choices := m.app.ModelChoices()
	items := make([]pickItem, 0, len(choices))
	at := 0
	for i, c := range choices {
		label := c.Name
		if c.From != "known" && c.From != "current" {
			label += m.st.r(m.st.dim, " ("+c.From+")")
		}
		if c.Name == m.model {
			label += m.st.r(m.st.accent, " ← current")
			at = i
		}
		items = append(items, pickItem{value: c.Name, label: label, search: c.Name + " " + c.From})
	}
	d := newPicker(fmt.Sprintf("Switch the model (%s, now %s)", m.app.Provider(), m.model), items, at, func(m *Model, it pickItem) {
		m.switchModel(it.value)
	})
	d.help = "type to filter · ↑↓ choose · enter switch · esc close · /model NAME takes any name"
	m.dialogs = append(m.dialogs, d)
	m.dialogsChanged()
}

// switchModel makes name the model of the next turns (between turns only).
func (m *Model) switchModel(name string) {
	if m.running {
		m.say("the model changes between turns; try again when this one ends")
		return
	}
	m.app.SetModel(name) // its ModelChanged updates the status line
	m.print("model: " + name)
}
