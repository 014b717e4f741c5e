package tui

import "github.com/gantry-dev/gantry/internal/ui/tui/history"

// historyNav walks the prompt history from the input box (↑ and ↓).
type historyNav struct {
	h   *history.History
	err error
}

func (n *historyNav) open(path string) {
	n.h, n.err = history.Open(path)
}

func (n *historyNav) prev(current string) (string, bool) {
	if n.h == nil {
		return "", false
	}
	return n.h.Prev(current)
}

func (n *historyNav) next() (string, bool) {
	if n.h == nil {
		return "", false
	}
	return n.h.Next()
}

func (n *historyNav) reset() {
	if n.h != nil {
		n.h.Reset()
	}
}
