package acp

import (
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"
)

// commandOffer is the list of commands the client was last sent, so that a turn that
// changes it (the folder trusted at the first prompt, a command file written, an MCP
// server's prompts) sends it again, and only then.
type commandOffer struct {
	mu   sync.Mutex
	sent string
}

// offerCommands sends available_commands_update when the list differs from the last
// one sent.
func (s *session) offerCommands() {
	list := s.availableCommands()
	var b strings.Builder
	for _, c := range list {
		b.WriteString(c.Name + "\x00" + c.Description + "\x00")
		if c.Input != nil && c.Input.Unstructured != nil {
			b.WriteString(c.Input.Unstructured.Hint)
		}
		b.WriteString("\x00")
	}
	s.offer.mu.Lock()
	changed := s.offer.sent != b.String()
	s.offer.sent = b.String()
	s.offer.mu.Unlock()
	if changed {
		s.send(sdk.SessionUpdate{AvailableCommandsUpdate: &sdk.SessionAvailableCommandsUpdate{
			SessionUpdate: "available_commands_update", AvailableCommands: list}})
	}
}
