package tui

import (
	"bytes"
	"image"
	pngenc "image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
)

func transcript(d *driver) string { return strings.Join(d.m.transcript, "\n") }

// Esc interrupts the turn: the running command is killed and the prompt comes back.
func TestEscCancelsRunningCommand(t *testing.T) {
	marker := "tui-esc-marker"
	d := newDriver(t, scripted.New(scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"sleep 30; echo ` + marker + `"}`}}}), 80, 24, false, nil)
	d.m.app.SetMode("yolo")
	d.typeText("wait")
	d.press("enter")
	d.until("the command to run", func() bool { return proctest.Running(marker) })
	d.press("esc")
	d.idle()
	if proctest.Running(marker) {
		t.Error("the command outlived esc")
	}
	if !strings.Contains(transcript(d), "interrupted") {
		t.Errorf("no interruption shown:\n%s", transcript(d))
	}
}

// Ctrl-C once warns, twice quits.
func TestCtrlCTwiceQuits(t *testing.T) {
	d := newDriver(t, scripted.New(), 80, 24, false, nil)
	d.press("ctrl+c")
	if d.m.quitting || !strings.Contains(d.m.live(), "ctrl+c again") {
		t.Fatalf("first ctrl+c: quitting %v, live %q", d.m.quitting, d.m.live())
	}
	d.press("ctrl+c")
	if !d.m.quitting {
		t.Error("the second ctrl+c did not quit")
	}
}

// Shift+Tab cycles the modes, and the status line shows the mode.
func TestShiftTabCyclesMode(t *testing.T) {
	d := newDriver(t, scripted.New(), 80, 24, false, nil)
	var seen []string
	for range 4 {
		d.press("shift+tab")
		seen = append(seen, string(d.m.app.Mode()))
	}
	if strings.Join(seen, ",") != "accept-edits,plan,yolo,default" {
		t.Errorf("modes %v", seen)
	}
	d.m.hint = ""
	if !strings.Contains(d.m.statusLine(), "mode default") {
		t.Errorf("status %q", d.m.statusLine())
	}
}

// The slash commands answer in the transcript without the model.
func TestSlashCommands(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "first answer"})
	d := newDriver(t, m, 100, 30, false, nil)
	for _, c := range []string{"/help", "/mode plan", "/model claude-haiku-4-5", "/permissions", "/skills", "/hooks", "/sessions"} {
		d.typeText(c)
		d.press("enter")
	}
	out := transcript(d)
	for _, want := range []string{"/compact", "mode: plan", "model: claude-haiku-4-5", "Permissions", "Skills (use one", "no hooks configured", "Sessions (newest first"} {
		if !strings.Contains(out, want) {
			t.Errorf("transcript lacks %q:\n%s", want, out)
		}
	}
	if len(m.Requests()) != 0 {
		t.Error("a command reached the model")
	}
	d.typeText("hello")
	d.press("enter")
	d.idle()
	if got := m.Requests()[0].Model; got != "claude-haiku-4-5" {
		t.Errorf("the turn used %s", got)
	}
	first := d.m.app.SessionID()
	d.typeText("/clear")
	d.press("enter")
	if d.m.app.SessionID() == first {
		t.Error("/clear kept the session")
	}
	d.typeText("/resume " + first)
	d.press("enter")
	if d.m.app.SessionID() != first || !strings.Contains(transcript(d), "resumed session") {
		t.Errorf("/resume: session %s", d.m.app.SessionID())
	}
	d.typeText("/quit")
	d.press("enter")
	if !d.m.quitting {
		t.Error("/quit did not quit")
	}
}

// The prompt history goes across sessions: ↑ brings back the last prompt.
func TestHistoryAcrossSessions(t *testing.T) {
	d := newDriver(t, scripted.New(scripted.Step{Text: "a"}), 80, 24, false, nil)
	d.typeText("remember this prompt")
	d.press("enter")
	d.idle()
	d.typeText("/clear")
	d.press("enter")
	d.press("up")
	if got := d.m.input.Value(); got != "/clear" {
		t.Errorf("first ↑: %q", got)
	}
	d.press("up")
	if got := d.m.input.Value(); got != "remember this prompt" {
		t.Errorf("second ↑: %q", got)
	}
}

// Typing @ and a part of a path offers the file; tab puts it in the prompt.
func TestFileCompletion(t *testing.T) {
	d := newDriver(t, scripted.New(), 80, 24, false, func(dir string) {
		_ = os.MkdirAll(filepath.Join(dir, "internal", "agent"), 0o755)
		_ = os.WriteFile(filepath.Join(dir, "internal", "agent", "loop.go"), []byte("package agent\n"), 0o644)
	})
	d.typeText("look at @internal/agent/lo")
	d.until("the file completion (found in the background)", func() bool { return d.m.comp.active() })
	d.press("tab")
	if got := d.m.input.Value(); got != "look at @internal/agent/loop.go " {
		t.Errorf("after tab: %q", got)
	}
	d.m.input.Reset()
	d.typeText("/he")
	if !d.m.comp.active() || !strings.Contains(d.m.comp.view(d.m), "help") {
		t.Errorf("no /help offered: %q", d.m.comp.view(d.m))
	}
}

// A pasted path of an image attaches it to the next prompt.
func TestPastedImageIsAttached(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "I see a picture."})
	d := newDriver(t, m, 80, 24, false, nil)
	img := filepath.Join(d.dir, "shot.png")
	var png bytes.Buffer // a real picture: images are read as read_file reads them
	if err := pngenc.Encode(&png, image.NewRGBA(image.Rect(0, 0, 2, 2))); err != nil {
		t.Fatal(err)
	}
	_ = os.WriteFile(img, png.Bytes(), 0o644)
	d.update(tea.PasteMsg{Content: img})
	if len(d.m.attached) != 1 {
		t.Fatal("the image was not attached")
	}
	d.typeText("what is this?")
	d.press("enter")
	d.idle()
	found := false
	for _, b := range m.Requests()[0].Messages[0].Content {
		found = found || (len(b.Images) == 1 && b.Images[0].MediaType == "image/png")
	}
	if !found {
		t.Error("the model did not get the image")
	}
}

// A long streamed answer is printed paragraph by paragraph: the live area holds only
// the paragraph being written, however long the answer grows.
func TestStreamingPrintsSettledParagraphs(t *testing.T) {
	d := newDriver(t, scripted.New(), 80, 24, false, nil)
	d.m.running = true
	for i := range 200 {
		d.update(eventMsg{face.TextDelta{Text: "A paragraph of text that goes on.\n\n"}})
		if i == 100 && strings.Count(d.m.stream, "\n") > 2 {
			t.Fatalf("the live text kept %d lines", strings.Count(d.m.stream, "\n"))
		}
	}
	d.update(eventMsg{face.TextDelta{Text: "still growing"}})
	if d.m.stream != "still growing" {
		t.Errorf("live text %q", d.m.stream)
	}
	if n := strings.Count(transcript(d), "A paragraph of text"); n != 200 {
		t.Errorf("%d paragraphs printed", n)
	}
}

// Resizing reflows the live area to the new width.
func TestResizeReflows(t *testing.T) {
	d := newDriver(t, scripted.New(), 80, 24, false, nil)
	d.m.stream = strings.Repeat("word ", 60)
	narrow := strings.Count(d.m.live(), "\n")
	d.update(tea.WindowSizeMsg{Width: 160, Height: 40})
	if wide := strings.Count(d.m.live(), "\n"); wide >= narrow {
		t.Errorf("lines at 80: %d, at 160: %d", narrow, wide)
	}
}

var _ = time.Second

// Switching sessions runs app.New on the program's goroutine: the events it raises
// (here the resumed todo list) must not go through the program's channel, which
// nobody reads meanwhile (the real channel is unbuffered).
func TestResumeDoesNotBlockOnItsOwnEvents(t *testing.T) {
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "t1", Name: "todo_write", Input: `{"todos":[{"id":"1","content":"resume me","status":"pending"}]}`}}},
		scripted.Step{Text: "ok"},
	)
	d := newDriver(t, m, 80, 24, false, nil)
	d.typeText("make a list")
	d.press("enter")
	d.idle()
	id := d.m.app.SessionID()
	d.run(d.m.submit("/clear")) // another session: the list's is no longer the one in use
	shown := func() int { return strings.Count(strings.Join(append(d.m.transcript, d.m.out...), "\n"), "resume me") }
	before := shown()
	d.setCh(make(chan tea.Msg)) // as the program's: a send waits for the event loop
	done := make(chan struct{})
	go func() {
		defer close(done)
		_, _ = d.m.Update(tea.KeyPressMsg{Code: tea.KeyEnter}) // nothing typed: no-op
		d.m.input.SetValue("/resume " + id)
		d.m.submit(d.m.input.Value())
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("/resume blocked on an event of the session it opened")
	}
	// The resumed session's events arrive as messages, as the program would read them.
	d.until("the resumed todo list", func() bool {
		return shown() > before
	})
}

// The SessionEnd hooks of a session the terminal UI leaves run with Claude Code's
// reasons: clear for /clear, resume for /resume, prompt_input_exit when the UI quits.
func TestSessionEndReasons(t *testing.T) {
	out := filepath.Join(t.TempDir(), "reasons.txt") // outlives the driver's folders
	t.Cleanup(func() {
		b, _ := os.ReadFile(out)
		if got := strings.Fields(string(b)); strings.Join(got, " ") != `"reason":"clear" "reason":"resume" "reason":"prompt_input_exit"` {
			t.Errorf("SessionEnd reasons %q", got)
		}
	})
	d := newDriver(t, scripted.New(), 80, 24, false, func(dir string) {
		os.MkdirAll(filepath.Join(dir, ".git"), 0o755)
		os.MkdirAll(filepath.Join(dir, ".gantry"), 0o755)
		cfg := "hooks:\n  SessionEnd:\n    - hooks:\n        - type: command\n          timeout: 20\n          command: grep -o '\"reason\":\"[a-z_]*\"' >> " + out + "\n"
		if err := os.WriteFile(filepath.Join(dir, ".gantry", "config.yaml"), []byte(cfg), 0o644); err != nil {
			t.Fatal(err)
		}
	})
	first := d.m.app.SessionID()
	d.typeText("/clear")
	d.press("enter")
	d.typeText("/resume " + first)
	d.press("enter")
	if d.m.app.SessionID() != first {
		t.Fatalf("/resume: session %s", d.m.app.SessionID())
	}
}
