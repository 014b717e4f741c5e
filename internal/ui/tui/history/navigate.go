package history

import "strings"

// Prev moves one entry back in time and returns its text. current is what the input
// box holds: when navigation starts it is kept as the draft that Next restores. At the
// oldest entry, or with an empty history, Prev returns current and false.
func (h *History) Prev(current string) (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	n := len(h.entries)
	if h.pos+1 >= n {
		return current, false
	}
	if h.pos < 0 {
		h.draft = current
	}
	h.pos++
	return h.entries[n-1-h.pos].Text, true
}

// Next moves one entry forward in time and returns its text; coming back past the
// newest entry it returns the draft and navigation ends. When not navigating it returns
// "" and false: the input box is left as it is.
func (h *History) Next() (string, bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.pos < 0 {
		return "", false
	}
	h.pos--
	if h.pos < 0 {
		draft := h.draft
		h.draft = ""
		return draft, true
	}
	return h.entries[len(h.entries)-1-h.pos].Text, true
}

// Reset ends navigation and forgets the draft, as when a prompt is sent or the input
// box is cleared.
func (h *History) Reset() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pos, h.draft = -1, ""
}

// Search returns the distinct texts that start with prefix, newest first.
func (h *History) Search(prefix string) []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	var out []string
	seen := make(map[string]bool)
	for i := len(h.entries) - 1; i >= 0; i-- {
		t := h.entries[i].Text
		if !seen[t] && strings.HasPrefix(t, prefix) {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}
