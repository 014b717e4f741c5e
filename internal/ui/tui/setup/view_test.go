package setup

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

var update = flag.Bool("update", false, "rewrite the golden files under testdata")

// views are the states drawn by the golden tests: the keys that lead to each, and
// whether ANTHROPIC_API_KEY is set.
var views = []struct {
	name   string
	envKey bool
	keys   []string
}{
	{"confirm-existing", true, []string{"existing config", "enter", "enter", "enter"}},
	{"provider", false, nil},
	{"provider-moved", false, []string{"down", "down"}},
	{"key-typed", false, []string{"enter", "sk-ant-0123456789"}},
	{"key-long", false, []string{"enter", strings.Repeat("k", 120)}},
	{"key-empty", false, []string{"enter", "enter"}},
	{"key-env", true, []string{"enter"}},
	{"model", false, []string{"enter", "sk-1", "enter", "backspace"}},
	{"confirm-typed", false, []string{"enter", "sk-ant-0123456789", "enter", "enter"}},
	{"confirm-env", true, []string{"enter", "enter", "enter"}},
	{"done", true, []string{"enter", "enter", "enter", "enter"}},
	{"aborted", false, []string{"down", "esc"}},
	{"server", false, []string{"3"}},
	{"server-moved", false, []string{"3", "down", "down"}},
	{"server-other", false, []string{"3", "3", "http://gpu-box:8000/v1"}},
	{"server-bad-url", false, []string{"3", "3", "gpu-box:8000", "enter"}},
	{"key-local", false, []string{"3", "1"}},
	{"model-local", false, []string{"3", "2", "enter", "enter"}},
	{"confirm-local", false, []string{"3", "1", "enter", "qwen3-coder:30b", "enter"}},
	{"confirm-local-key", false, []string{"existing config", "3", "3", "https://openrouter.ai/api/v1", "enter", "sk-or-1", "enter", "qwen/qwen3-coder", "enter"}},
	{"done-local", false, []string{"3", "1", "enter", "qwen3-coder:30b", "enter", "enter"}},
}

func TestViewsGolden(t *testing.T) {
	for _, tc := range views {
		for _, color := range []bool{false, true} {
			name := tc.name
			if color {
				name += ".color"
			}
			t.Run(name, func(t *testing.T) {
				sandbox(t)
				if tc.envKey {
					t.Setenv("ANTHROPIC_API_KEY", "sk-env")
				}
				m, _ := press(t, New(Options{Color: color, Width: 80}), viewKeys(t, tc.keys)...)
				got := m.View().Content
				checkWidth(t, got, 80)
				if !color && strings.Contains(got, "\x1b") {
					t.Errorf("escape sequences with colour off:\n%q", got)
				}
				if color && tc.name != "aborted" && !strings.Contains(got, "\x1b[") {
					t.Errorf("no colour with colour on")
				}
				golden(t, filepath.Join("testdata", name+".golden"), got)
			})
		}
	}
}

func TestViewsFitANarrowTerminal(t *testing.T) {
	for _, width := range []int{40, 60, 200} {
		for _, tc := range views {
			sandbox(t)
			if tc.envKey {
				t.Setenv("ANTHROPIC_API_KEY", "sk-env")
			}
			m, _ := press(t, New(Options{Color: true, Width: width}), viewKeys(t, tc.keys)...)
			checkWidth(t, m.View().Content, min(width, 80))
		}
	}
	// A window size message resizes.
	sandbox(t)
	m, _ := press(t, New(Options{}), "enter", strings.Repeat("k", 100))
	m, _ = drive(m, tea.WindowSizeMsg{Width: 30, Height: 10})
	checkWidth(t, m.View().Content, 30)
}

func TestCursorIsInTheInput(t *testing.T) {
	sandbox(t)
	m, _ := press(t, New(Options{Width: 80}), "enter", "sk-1")
	v := m.View()
	if v.Cursor == nil {
		t.Fatal("no cursor in the key step")
	}
	lines := strings.Split(v.Content, "\n")
	if y := v.Cursor.Position.Y; y >= len(lines) || !strings.HasPrefix(lines[y], "API key: ****") {
		t.Fatalf("cursor on line %d of\n%s", y, v.Content)
	}
	if x := v.Cursor.Position.X; x != len("API key: ****") {
		t.Errorf("cursor at column %d", x)
	}
	m, _ = press(t, m, "enter")
	if v := m.View(); v.Cursor == nil || !strings.HasPrefix(strings.Split(v.Content, "\n")[v.Cursor.Position.Y], "Model: ") {
		t.Errorf("cursor not in the model input: %+v", v.Cursor)
	}
	m, _ = press(t, m, "enter")
	if m.View().Cursor != nil {
		t.Error("a cursor on the summary")
	}
}

// viewKeys returns keys, first making config.yaml when they start with
// "existing config".
func viewKeys(t *testing.T, keys []string) []string {
	if len(keys) == 0 || keys[0] != "existing config" {
		return keys
	}
	dir := os.Getenv("GANTRY_CONFIG_DIR")
	os.MkdirAll(dir, 0o700)
	if err := os.WriteFile(filepath.Join(dir, "config.yaml"), []byte("maxOutput: 4000\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return keys[1:]
}

func checkWidth(t *testing.T, view string, width int) {
	t.Helper()
	for i, l := range strings.Split(view, "\n") {
		if w := lipgloss.Width(l); w > width {
			t.Errorf("line %d is %d columns wide, more than %d: %q", i, w, width, l)
		}
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to write it)", err)
	}
	if got != string(want) {
		t.Errorf("view differs from %s (go test -update rewrites it):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}
