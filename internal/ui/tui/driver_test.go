package tui

import (
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// driver runs a Model as the tea program would: messages from the core arrive on a
// channel, commands run in goroutines, and every message goes through Update on the
// test's goroutine.
type driver struct {
	t   *testing.T
	m   *Model
	dir string
	// msgs is the channel the core's messages arrive on; a test may swap it (for an
	// unbuffered one) while the core sends, so it is read and set under mu.
	mu   sync.Mutex
	msgs chan tea.Msg
}

// ch is the channel messages arrive on now.
func (d *driver) ch() chan tea.Msg {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.msgs
}

// setCh makes c the channel messages arrive on from now.
func (d *driver) setCh(c chan tea.Msg) {
	d.mu.Lock()
	d.msgs = c
	d.mu.Unlock()
}

func newDriver(t *testing.T, model *scripted.Provider, width, height int, color bool, setup func(dir string)) *driver {
	t.Helper()
	home := t.TempDir()
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(home, "config"))
	t.Setenv("GANTRY_DATA_DIR", filepath.Join(home, "data"))
	t.Setenv("GANTRY_PROVIDER", "")
	t.Setenv("GANTRY_MODEL", "")
	t.Setenv("ANTHROPIC_API_KEY", "test")
	dir := t.TempDir()
	if setup != nil {
		setup(dir)
	}
	d := &driver{t: t, msgs: make(chan tea.Msg, 4096), dir: dir}
	gone := make(chan struct{}) // the program has ended: sends give up
	send := func(msg tea.Msg) {
		select {
		case d.ch() <- msg:
		case <-gone:
		}
	}
	// Trust: the tests' folders run their project files, as a trusted folder's.
	m, err := New(Options{App: app.Options{Cwd: dir, LLM: model, Store: filepath.Join(home, "data", "sessions.db"), Trust: true},
		Color: color, Width: width, Height: height, Version: "test"}, send)
	if err != nil {
		t.Fatal(err)
	}
	m.noTick = true
	d.m = m
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	t.Cleanup(func() { close(gone) }) // first: a Cleanup runs before those registered earlier
	d.update(tea.WindowSizeMsg{Width: width, Height: height})
	return d
}

// update applies msg and starts the commands it returns.
func (d *driver) update(msg tea.Msg) {
	_, cmd := d.m.Update(msg)
	d.m.printing = false // the print reached the scrollback
	d.run(cmd)
}

func (d *driver) run(cmd tea.Cmd) {
	if cmd == nil {
		return
	}
	go func() {
		msg := cmd()
		if b, ok := msg.(tea.BatchMsg); ok {
			for _, c := range b {
				d.run(c)
			}
			return
		}
		if msg != nil {
			d.ch() <- msg
		}
	}()
}

// until processes messages until cond holds.
func (d *driver) until(what string, cond func() bool) {
	d.t.Helper()
	deadline := time.After(15 * time.Second)
	tick := time.NewTicker(10 * time.Millisecond) // cond may turn on its own (a process appears)
	defer tick.Stop()
	for !cond() {
		select {
		case msg := <-d.ch():
			d.update(msg)
		case <-tick.C:
		case <-deadline:
			d.t.Fatalf("waited in vain for %s; screen:\n%s", what, d.screen())
		}
	}
	// Drain what is already queued (prints of the last events).
	for {
		select {
		case msg := <-d.ch():
			d.update(msg)
		case <-time.After(30 * time.Millisecond):
			return
		}
	}
}

func (d *driver) idle() { d.until("the turn's end", func() bool { return !d.m.running }) }

func (d *driver) dialog() { d.until("a dialog", func() bool { return len(d.m.dialogs) > 0 }) }

// typeText types s and presses enter.
func (d *driver) typeText(s string) {
	for _, r := range s {
		d.update(tea.KeyPressMsg{Code: r, Text: string(r)})
	}
}

func (d *driver) press(key string) {
	switch key {
	case "enter":
		d.update(tea.KeyPressMsg{Code: tea.KeyEnter})
	case "esc":
		d.update(tea.KeyPressMsg{Code: tea.KeyEscape})
	case "down":
		d.update(tea.KeyPressMsg{Code: tea.KeyDown})
	case "up":
		d.update(tea.KeyPressMsg{Code: tea.KeyUp})
	case "tab":
		d.update(tea.KeyPressMsg{Code: tea.KeyTab})
	case "shift+tab":
		d.update(tea.KeyPressMsg{Code: tea.KeyTab, Mod: tea.ModShift})
	case "ctrl+c":
		d.update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	case "space":
		d.update(tea.KeyPressMsg{Code: tea.KeySpace, Text: " "})
	default:
		r := []rune(key)[0]
		d.update(tea.KeyPressMsg{Code: r, Text: key})
	}
}

// screen is what the terminal shows: the scrollback's last lines and the live area.
func (d *driver) screen() string {
	lines := append(append([]string(nil), d.m.transcript...), d.m.out...)
	lines = append(lines, strings.Split(d.m.live(), "\n")...)
	if len(lines) > d.m.height {
		lines = lines[len(lines)-d.m.height:]
	}
	return normalize(strings.Join(lines, "\n"), d.dir)
}

var elapsedRE = regexp.MustCompile(`\(\d+s\)|\(\d+m\d+s\)`)

// cutDir is the project folder as the first line shortens it to fit.
var cutDir = regexp.MustCompile(`· …[^·]* · /help`)

// normalize hides what changes between runs: the project folder, elapsed times and
// trailing spaces.
func normalize(s, dir string) string {
	s = strings.ReplaceAll(s, dir, "<dir>")
	s = cutDir.ReplaceAllString(s, "· <dir> · /help")
	s = elapsedRE.ReplaceAllString(s, "(Ns)")
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n")
}

// golden compares got with testdata/golden/name.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if string(want) != got {
		t.Errorf("%s differs from the golden file; got:\n%s\nwant:\n%s", name, got, want)
	}
}
