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

// /plugin lists the user's enabled plugins, without the model; a plugin's command is
// one of the available commands, as plugin:command.
func TestPluginCommand(t *testing.T) {
	t.Setenv("CLAUDE_CONFIG_DIR", t.TempDir())
	plug := filepath.Join(t.TempDir(), "demo")
	if err := os.MkdirAll(filepath.Join(plug, ".claude-plugin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plug, ".claude-plugin", "plugin.json"), []byte(`{"name": "demo", "version": "0.3.0", "description": "Demo plugin"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(plug, "commands"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(plug, "commands", "hello.md"), []byte("---\ndescription: Greet from the plugin\n---\nHello $ARGUMENTS.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	m := scripted.New()
	h := start(t, m, sdk.ClientCapabilities{})
	if err := config.WritePluginList(config.PluginListFile("", false), []string{plug}); err != nil {
		t.Fatal(err)
	}
	id := h.newSession()
	h.client.waitFor(t, "available_commands_update", func(u sdk.SessionUpdate) bool { return u.AvailableCommandsUpdate != nil })
	offered := false
	for _, u := range h.client.snapshot() {
		if u.AvailableCommandsUpdate != nil {
			for _, c := range u.AvailableCommandsUpdate.AvailableCommands {
				offered = offered || (c.Name == "demo:hello" && strings.Contains(c.Description, "Greet from the plugin"))
			}
		}
	}
	if !offered {
		t.Error("the plugin's command is not among the available commands")
	}
	h.prompt(id, "/plugin")
	got := agentText(h.client.snapshot())
	if !strings.Contains(got, "- demo 0.3.0 (user): "+plug+" — Demo plugin") {
		t.Errorf("/plugin:\n%s", got)
	}
	if len(m.Requests()) != 0 {
		t.Error("/plugin reached the model")
	}
}
