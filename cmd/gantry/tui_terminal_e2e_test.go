package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// waitGone waits up to 3 s for the processes whose command lines hold any of marks
// to end, and fails the test with those left.
func waitGone(t *testing.T, marks ...string) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for {
		var left []int
		for _, m := range marks {
			left = append(left, processesWith(m)...)
		}
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command outlived the interrupt by 3 s: pids %v", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// startSleeper starts gantry in yolo mode with a model whose first answer runs a
// command that prints a line and sleeps, and waits until it runs; the marker and
// the sleep's argument name its processes.
func startSleeper(t *testing.T, name string) (tt *tuiTerm, srv *fakellm.Server, marker, sleep string) {
	t.Helper()
	marker = fmt.Sprintf("tui-%s-%d", name, os.Getpid())
	sleep = fmt.Sprintf("31.%d", 100+os.Getpid()%900)
	srv = fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("s1", "bash", `{"command":"echo printed-by-$((6*7))-`+name+`; sleep `+sleep+`; echo `+marker+`"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Still here after ctrl+c.")}},
	)
	t.Cleanup(srv.Close)
	t.Cleanup(func() {
		for _, p := range append(processesWith(marker), processesWith("sleep "+sleep)...) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	tt = startTUI(t, 100, 30, tuiProjectDir(t), tuiEnv(t, srv), "--permission-mode", "yolo")
	tt.waitFor(tuiStatusMark + "yolo")
	tt.typeLine("wait for a while")
	// The output differs from the command's text, which shows it as $((6*7)).
	tt.waitUntil("the command's first line, live", func(s string) bool {
		return strings.Contains(s, "⏵") && strings.Contains(s, "printed-by-42-"+name)
	})
	deadline := time.Now().Add(tuiWait)
	for len(processesWith(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	return tt, srv, marker, sleep
}

// ctrl+c interrupts a running command as esc does: the status line says so while
// it runs; the process goes; the call's line stays in the scrollback with what the
// command printed; gantry goes on.
func TestTUICtrlCInterruptsARunningCommand(t *testing.T) {
	tt, srv, marker, sleep := startSleeper(t, "ctrlc")
	if s := tt.screen(); !strings.Contains(s, "esc or ctrl+c to interrupt") {
		t.Errorf("the status line of a running turn does not say how to interrupt it:\n%s", tuiFrame(s))
	}
	tt.keys("C-c")
	s := tt.waitFor("⏹ interrupted")
	waitGone(t, marker, "sleep "+sleep)
	for _, want := range []string{"sleep " + sleep + "; echo " + marker + " (interrupted)", "  printed-by-42-ctrlc", "[cancelled: the command was stopped"} {
		if !strings.Contains(s, want) {
			t.Errorf("the scrollback lacks %q:\n%s", want, tuiFrame(s))
		}
	}
	tt.waitUntil("no live tool line", func(s string) bool { return !strings.Contains(s, "⏵") })
	tt.typeLine("are you still there?")
	tt.waitFor("Still here after ctrl+c.")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2", n)
	}
}

// ctrl+c twice while a command runs quits: the command's process goes, and its line
// and what it printed stay on the screen.
func TestTUICtrlCTwiceQuitsWhileACommandRuns(t *testing.T) {
	tt, _, marker, sleep := startSleeper(t, "quit")
	tt.keys("C-c", "C-c")
	code, _ := tt.exited()
	if code != 0 {
		t.Fatalf("gantry exited with %d after ctrl+c twice:\n%s", code, tuiFrame(tt.screen()))
	}
	waitGone(t, marker, "sleep "+sleep)
	end := tt.screen()
	for _, want := range []string{"sleep " + sleep, "(interrupted)", "printed-by-42-quit"} {
		if !strings.Contains(end, want) {
			t.Errorf("the screen after quitting lacks %q:\n%s", want, tuiFrame(end))
		}
	}
}

// /resume with no id: a picker of this folder's other sessions with their first
// prompt and age; typing filters, enter resumes. /model with no name: the models,
// the current one marked; enter switches.
func TestTUIResumePickerAndModelList(t *testing.T) {
	srv := fakellm.New(say("Apples are red."), say("Bananas are yellow."), say("Back with apples."))
	defer srv.Close()
	tt := startTUI(t, 100, 30, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine("the apple question")
	tt.settled("Apples are red.")
	tt.typeLine("/clear")
	tt.settled("── new session")
	tt.typeLine("the banana question")
	tt.settled("Bananas are yellow.")
	tt.typeLine("/clear")
	tt.settled("(/resume takes the last one up again)")

	tt.typeLine("/resume")
	_, s, _ := strings.Cut(tt.settled("Resume a session of this folder (2)"), "› /resume") // the picker's box
	for _, want := range []string{"the apple question", "the banana question", "just now", "type to filter"} {
		if !strings.Contains(s, want) {
			t.Errorf("the picker lacks %q:\n%s", want, tuiFrame(s))
		}
	}
	if strings.Index(s, "the banana question") > strings.Index(s, "the apple question") {
		t.Errorf("the picker is not newest first:\n%s", tuiFrame(s))
	}
	tt.tmux("send-keys", "-t", "g", "-l", "apple")
	tt.waitUntil("the filter to keep apple only", func(s string) bool {
		_, box, _ := strings.Cut(s, "› /resume")
		return strings.Contains(box, "filter: apple") && !strings.Contains(box, "the banana question")
	})
	tt.keys("Enter")
	tt.settled("end of the resumed session")
	tt.typeLine("and now?")
	tt.settled("Back with apples.")

	tt.typeLine("/model")
	s = tt.settled("Switch the model")
	if !strings.Contains(s, "claude-sonnet-4-5 (alias sonnet) ← current") {
		t.Errorf("the model list does not mark the current model:\n%s", tuiFrame(s))
	}
	tt.tmux("send-keys", "-t", "g", "-l", "haiku")
	tt.waitFor("filter: haiku")
	tt.keys("Enter")
	tt.settled("claude-haiku-4-5 · mode default")
}

// /export writes into gantry's data folder and says where; an export written into
// the project by path is gantry's own: the next /rewind shows only the real file's
// diff, names nothing as changed outside gantry, and leaves the export.
func TestTUIExportThenRewind(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("b1", "bash", `{"command":"echo changed > note.txt"}`)}},
		say("Changed the note."),
	)
	defer srv.Close()
	dir := tuiProjectDir(t)
	writeFiles(t, dir, map[string]string{"note.txt": "original\n"})
	environ := tuiEnv(t, srv)
	tt := startTUI(t, 140, 40, dir, environ, "--permission-mode", "yolo")
	tt.waitFor(tuiStatusMark + "yolo")
	tt.typeLine("change the note")
	tt.settled("Changed the note.")
	tt.typeLine("/export")
	s := tt.settled("wrote the transcript to")
	exports := filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "exports")
	if !strings.Contains(strings.ReplaceAll(s, "\n", ""), exports) {
		t.Errorf("/export did not write into %s:\n%s", exports, tuiFrame(s))
	}
	talk := filepath.Join(dir, "talk.md")
	tt.typeLine("/export " + talk)
	tt.waitUntil("the second export", func(s string) bool { return strings.Count(s, "wrote the transcript to") == 2 })
	if _, err := os.Stat(talk); err != nil {
		t.Fatal(err)
	}

	tt.typeLine("/rewind")
	tt.waitFor("Rewind to before which prompt?")
	tt.keys("Enter")
	tt.waitFor("Files and conversation")
	tt.keys("Enter")
	s = tt.settled("+original")
	if _, box, _ := strings.Cut(s, "› /rewind"); strings.Contains(box, "talk.md") || strings.Contains(box, "outside gantry") {
		t.Errorf("the rewind counts the export as a change:\n%s", tuiFrame(s))
	}
	tt.keys("y")
	tt.waitFor("restored the files as they were before prompt 1")
	if b, _ := os.ReadFile(filepath.Join(dir, "note.txt")); string(b) != "original\n" {
		t.Errorf("note.txt after the rewind: %q", b)
	}
	if _, err := os.Stat(talk); err != nil {
		t.Errorf("the rewind removed the export: %v", err)
	}
}
