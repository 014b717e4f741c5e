package tui

import "charm.land/bubbles/v2/textarea"

// firstRowPrompt marks the input's first row only: the rows a long prompt wraps onto,
// and the lines after a new line, start under its text, so that a prompt reads as one.
func firstRowPrompt(p textarea.PromptInfo) string {
	if p.LineNumber == 0 {
		return "› "
	}
	return "  "
}
