package acp

import "fmt"

// lastRequestShare says how full the context window was at the conversation's last
// request, from its response's usage (what the usage_update reports): a sentence for
// /context.
func (s *session) lastRequestShare(window int) string {
	s.mu.Lock()
	used := s.contextUsed
	s.mu.Unlock()
	switch {
	case used <= 0:
		return "Last request: none yet in this conversation."
	case window <= 0:
		return fmt.Sprintf("Last request: %d tokens (the model's window is unknown).", used)
	}
	return fmt.Sprintf("Last request: %d of %d tokens (%.0f%% of the window).", used, window, 100*float64(used)/float64(window))
}
