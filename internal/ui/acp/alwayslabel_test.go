package acp

import (
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// The "always" option of a compound command names the programs it allows, in plain
// words, not the rules' regular expressions.
func TestAlwaysOptionNamesThePrograms(t *testing.T) {
	m := scripted.New(bashStep("b1", "go test ./... && go vet ./..."), scripted.Step{Text: "ok"})
	h := start(t, m, sdk.ClientCapabilities{})
	var name string
	h.client.answer = func(p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
		for _, o := range p.Options {
			if o.Kind == sdk.PermissionOptionKindAllowAlways {
				name = o.Name
			}
		}
		return sdk.RequestPermissionResponse{Outcome: sdk.NewRequestPermissionOutcomeSelected(optReject)}, nil
	}
	id := h.newSession()
	h.prompt(id, "check")
	if !strings.HasPrefix(name, "Always allow go test") || !strings.Contains(name, "go vet") {
		t.Errorf("the always option is %q, want it to name go test and go vet", name)
	}
	if strings.ContainsAny(name, "`()*?\\") {
		t.Errorf("the always option shows rules or Markdown: %q", name)
	}
}
