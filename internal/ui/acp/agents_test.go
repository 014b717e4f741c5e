package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /agents lists the definitions with where each came from, without the model.
func TestAgentsCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	m := scripted.New()
	h := start(t, m, sdk.ClientCapabilities{})
	if err := os.MkdirAll(filepath.Join(h.dir, ".gantry", "agents"), 0o755); err != nil {
		t.Fatal(err)
	}
	h.write(".gantry/agents/reviewer.md", "---\nname: reviewer\ndescription: Reviews a change\n---\nReview.\n")
	id := h.newSession()
	h.prompt(id, "/agents")
	got := agentText(h.client.snapshot())
	if !strings.Contains(got, "- `reviewer` — Reviews a change (project .gantry/agents)") {
		t.Errorf("/agents:\n%s", got)
	}
	if len(m.Requests()) != 0 {
		t.Error("/agents reached the model")
	}
}
