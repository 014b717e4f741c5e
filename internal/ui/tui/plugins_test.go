package tui

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// /plugin lists the user's enabled plugins, without the model; the completion offers
// a plugin's command as /plugin:command.
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
	d := newDriver(t, m, 200, 30, false, func(string) {
		if err := config.WritePluginList(config.PluginListFile("", false), []string{plug}); err != nil {
			t.Fatal(err)
		}
	})
	d.typeText("/demo:h")
	if view := d.m.comp.view(d.m); !strings.Contains(view, "demo:hello") || !strings.Contains(view, "Greet from the plugin (plugin demo)") {
		t.Errorf("the completion offers %q", view)
	}
	d.m.input.Reset()
	d.m.comp.close()
	d.typeText("/plugin")
	d.press("enter")
	out := transcript(d)
	for _, want := range []string{"Plugins (gantry plugin add", "demo 0.3.0 (user): " + plug, "Demo plugin"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if len(m.Requests()) != 0 {
		t.Error("/plugin reached the model")
	}
}
