package acp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /plugin lists the user's enabled plugins, without the model.
func TestPluginCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	plug := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(filepath.Join(plug, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plug, ".claude-plugin", "plugin.json"), []byte(`{"name": "demo", "version": "0.3.0", "description": "Demo plugin"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	m := scripted.New()
	h := start(t, m, sdk.ClientCapabilities{})
	if err := config.WritePluginList(config.PluginListFile("", false), []string{plug}); err != nil {
		t.Fatal(err)
	}
	id := h.newSession()
	h.prompt(id, "/plugin")
	got := agentText(h.client.snapshot())
	if !strings.Contains(got, "- demo 0.3.0 (user): "+plug+" — Demo plugin") {
		t.Errorf("/plugin:\n%s", got)
	}
	if len(m.Requests()) != 0 {
		t.Error("/plugin reached the model")
	}
}
