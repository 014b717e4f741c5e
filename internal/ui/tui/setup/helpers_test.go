package setup

import (
	"os"
	"path/filepath"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// sandbox makes a home folder holding the user's configuration folder (which does
// not exist yet) and clears the key variables; it returns the configuration folder.
func sandbox(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	dir := filepath.Join(home, ".config", "gantry")
	t.Setenv("HOME", home)
	t.Setenv("GANTRY_CONFIG_DIR", dir)
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")
	t.Setenv("OPENAI_BASE_URL", "")
	return dir
}

// named keys, as tea.KeyPressMsg.
var named = map[string]tea.KeyPressMsg{
	"enter":     {Code: tea.KeyEnter},
	"esc":       {Code: tea.KeyEscape},
	"ctrl+c":    {Code: 'c', Mod: tea.ModCtrl},
	"up":        {Code: tea.KeyUp},
	"down":      {Code: tea.KeyDown},
	"tab":       {Code: tea.KeyTab},
	"backspace": {Code: tea.KeyBackspace},
	"ctrl+u":    {Code: 'u', Mod: tea.ModCtrl},
}

// keys turns names and text into key presses: a named key, or each rune of a text.
func keys(t *testing.T, ks ...string) []tea.Msg {
	t.Helper()
	var out []tea.Msg
	for _, k := range ks {
		if msg, ok := named[k]; ok {
			out = append(out, msg)
			continue
		}
		for _, r := range k {
			out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
	return out
}

// drive sends msgs to m in turn and returns it with the last command.
func drive(m Model, msgs ...tea.Msg) (Model, tea.Cmd) {
	var cmd tea.Cmd
	for _, msg := range msgs {
		m, cmd = m.Update(msg)
	}
	return m, cmd
}

// press sends key presses (see keys).
func press(t *testing.T, m Model, ks ...string) (Model, tea.Cmd) {
	t.Helper()
	return drive(m, keys(t, ks...)...)
}

// doneMsg runs cmd and returns its DoneMsg, failing if it gives none.
func doneMsg(t *testing.T, cmd tea.Cmd) DoneMsg {
	t.Helper()
	if cmd == nil {
		t.Fatal("no command: the setup did not end")
	}
	d, ok := cmd().(DoneMsg)
	if !ok {
		t.Fatalf("the command gave %T, not DoneMsg", cmd())
	}
	return d
}

// files lists the files under dir, relative ("" when it does not exist).
func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	return out
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}
