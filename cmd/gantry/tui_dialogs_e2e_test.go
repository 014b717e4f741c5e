package main

// The terminal UI's dialogs, help and notices, in tmux: the permission dialog and its
// "always", the help's columns, resizing, wrapping, the timer and hooks' rewrites.

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// modelSaw is the last request's messages as JSON text.
func modelSaw(t *testing.T, srv *fakellm.Server) string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) == 0 {
		t.Fatal("no request reached the model")
	}
	b, _ := json.Marshal(reqs[len(reqs)-1].Body["messages"])
	return string(b)
}

// "Always" shows the rule it keeps, allows the same program and subcommand without
// asking, and still asks for another subcommand.
func TestTUIAlwaysShowsAndKeepsTheRule(t *testing.T) {
	srv := fakellm.New(
		call("g1", "bash", `{"command":"git status"}`),
		call("g2", "bash", `{"command":"git status --short"}`),
		call("g3", "bash", `{"command":"git log -1"}`),
		say("Looked at git."),
	)
	defer srv.Close()
	tt := startTUI(t, 100, 30, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("look at git")
	d := tt.settled("Allow bash?")
	if !strings.Contains(d, "allow `git status` commands (bash:git status( .*)?) for the rest of the session") {
		t.Fatalf("the question does not show the rule:\n%s", tuiFrame(d))
	}
	tt.keys("a")
	d = tt.settled("Allow bash?")
	if !strings.Contains(d, "│ bash: git log -1") || !strings.Contains(d, "🛠️ bash: git status --short\n") {
		t.Fatalf("git status --short was asked, or git log was not:\n%s", tuiFrame(d))
	}
	tt.keys("y")
	tt.settled("Looked at git.")
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d requests", n)
	}
}

// A batch of questions: skipping one keeps the answers to the others.
func TestTUIBatchSkipKeepsTheOtherAnswers(t *testing.T) {
	srv := fakellm.New(
		call("q1", "ask_user", `{"questions":[{"header":"DB","question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]},{"header":"Port","question":"Which port?","options":[{"label":"8080"},{"label":"9090"}]}]}`),
		say("Noted."),
	)
	defer srv.Close()
	tt := startTUI(t, 100, 30, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("set it up")
	tt.settled("(1 of 2)")
	tt.keys("2", "Enter")
	tt.settled("(2 of 2)")
	tt.keys("4", "Enter") // Skip (3 is Type an answer…)
	tt.settled("Noted.")
	saw := modelSaw(t, srv)
	if !strings.Contains(saw, "Which database? → SQLite") || !strings.Contains(saw, "Which port? → (") || strings.Contains(saw, "passed on the question") {
		t.Fatalf("the answers that reached the model: %s", saw)
	}
}

// /permissions names the rules files; /clear keeps the model chosen; /resume with no
// id after /clear opens the picker at the session /clear left, and enter takes it up again.
func TestTUIPermissionsClearAndResume(t *testing.T) {
	srv := fakellm.New(say("First answer."), say("After resume."))
	defer srv.Close()
	dir := tuiProjectDir(t)
	writeFiles(t, dir, map[string]string{".gantry/permissions.yaml": "permissions:\n  allow:\n    - 'bash:make( .*)?'\n"})
	tt := startTUI(t, 120, 40, dir, tuiEnv(t, srv), "--trust")
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("/permissions")
	s := tt.settled("rules files")
	for _, want := range []string{filepath.Join(dir, ".gantry", "permissions.yaml") + " (read)", "bash:make( .*)?", "permissions.yaml:3"} {
		if !strings.Contains(s, want) {
			t.Errorf("/permissions lacks %q:\n%s", want, tuiFrame(s))
		}
	}
	tt.typeLine("remember this")
	tt.settled("First answer.")
	tt.typeLine("/model claude-opus-4-1")
	tt.waitFor("claude-opus-4-1 · mode default")
	tt.typeLine("/clear")
	s = tt.settled("── new session")
	if !strings.Contains(s, "claude-opus-4-1 · mode default") {
		t.Errorf("/clear dropped the chosen model:\n%s", tuiFrame(s))
	}
	tt.typeLine("/resume")
	tt.settled("Resume a session of this folder") // the picker, at the session /clear left
	tt.keys("Enter")
	s = tt.settled("end of the resumed session")
	if !strings.Contains(s, "› remember this") || !strings.Contains(s, "First answer.") {
		t.Fatalf("/resume did not take up the session /clear left:\n%s", tuiFrame(s))
	}
	tt.typeLine("and now?")
	tt.settled("After resume.")
	if saw := modelSaw(t, srv); !strings.Contains(saw, "remember this") {
		t.Errorf("the resumed session's history did not reach the model: %s", saw)
	}
	if model := srv.Requests()[1].Body["model"]; model != "claude-opus-4-1" {
		t.Errorf("the resumed session asked %v", model)
	}
}

// /help is in columns at 60 columns: every description starts in one column, and a
// long one wraps under it, not under the command.
func TestTUIHelpInColumns(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	tt := startTUI(t, 60, 50, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("/help")
	tt.settled("ctrl+c twice")
	s := tt.screen("-S", "-") // the scrollback too: /help is longer than the screen
	all := strings.Split(s, "\n")
	from, to := -1, -1
	for i, l := range all {
		switch l {
		case "Commands":
			from = i + 1
		case "Keys":
			to = i
		}
	}
	if from < 0 || to < from+10 {
		t.Fatalf("no commands table:\n%s", tuiFrame(s))
	}
	col := -1
	for _, l := range all[from:to] {
		r := []rune(l)
		if strings.HasPrefix(l, "  /help") {
			col = strings.Index(string(r), "list the commands")
			col = len([]rune(string(r)[:col]))
		}
		if len(r) > 60 {
			t.Errorf("a line is wider than the terminal: %q", l)
		}
	}
	if col <= 0 {
		t.Fatalf("no /help row:\n%s", tuiFrame(s))
	}
	for _, l := range all[from:to] {
		r := []rune(l)
		switch {
		case strings.HasPrefix(l, "  /") && len(r) >= col-2 && !strings.Contains(strings.TrimSpace(l), "  "):
			// A command with arguments too wide for its column stands alone: its
			// description goes on under the column (the next case).
		case strings.HasPrefix(l, "  /"):
			if len(r) <= col || r[col-1] != ' ' || r[col] == ' ' {
				t.Errorf("a description does not start in the column at %d: %q", col, l)
			}
		case strings.TrimSpace(l) != "":
			if len(r) <= col || strings.TrimSpace(string(r[:col])) != "" || r[col] == ' ' {
				t.Errorf("a wrapped line does not start under the column at %d: %q", col, l)
			}
		}
	}
}

// A narrower terminal leaves no ghost copy of the input.
func TestTUIResizeLeavesNoGhost(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	tt := startTUI(t, 100, 20, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor("Ask gantry, or /help")
	text := "zebra one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen"
	tt.tmux("send-keys", "-t", "g", "-l", text)
	tt.waitFor("sixteen")
	for _, w := range []int{60, 40, 30} {
		tt.tmux("resize-window", "-t", "g", "-x", fmt.Sprint(w))
		tt.waitUntil(fmt.Sprintf("the input at %d columns", w), func(s string) bool {
			return strings.Contains(s, "sixteen") && strings.Contains(s, "claude-sonnet-4-5 · mode") && maxWidth(s) <= w
		})
		s := tt.settled("sixteen")
		if n := strings.Count(s, "zebra"); n != 1 {
			t.Fatalf("at %d columns the input shows %d times:\n%s", w, n, tuiFrame(s))
		}
	}
}

func maxWidth(s string) int {
	m := 0
	for _, l := range strings.Split(s, "\n") {
		m = max(m, len([]rune(strings.TrimRight(l, " "))))
	}
	return m
}

// At 60 columns a question wraps at word boundaries, under its own indent.
func TestTUIDialogsWrapAtWords(t *testing.T) {
	long := "Should the importer keep the rows it cannot parse in a separate quarantine table for review, or drop them with a warning in the log?"
	srv := fakellm.New(call("q1", "ask_user", `{"question":"`+long+`","options":[{"label":"Keep them in quarantine","description":"a table named import_quarantine, reviewed by hand every morning"},{"label":"Drop them"}]}`), say("ok"))
	defer srv.Close()
	tt := startTUI(t, 60, 30, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("import")
	s := tt.settled("gantry asks")
	// The box's lines, joined with spaces, are the question and the option whole: a
	// word cut in two would read as two words.
	var box []string
	for _, l := range strings.Split(s, "\n") {
		if strings.HasPrefix(l, "│") {
			box = append(box, strings.TrimSpace(strings.Trim(l, "│")))
		}
		if len([]rune(l)) > 60 {
			t.Errorf("a line is wider than the terminal: %q", l)
		}
	}
	joined := strings.Join(strings.Fields(strings.Join(box, " ")), " ")
	for _, want := range []string{long, "1. Keep them in quarantine — a table named import_quarantine, reviewed by hand every morning"} {
		if !strings.Contains(joined, want) {
			t.Errorf("the dialog does not read %q whole:\n%s", want, tuiFrame(s))
		}
	}
	// The option's second line starts under its text, not under the number.
	if !regexp.MustCompile(`(?m)^│ › 1\. Keep them in quarantine — [^\n]*\n│      \S`).MatchString(s) {
		t.Errorf("the option's wrapped line is not under its text:\n%s", tuiFrame(s))
	}
}

// The permission dialog of a large edit shows the whole diff on a key, scrollable.
func TestTUIPermissionDialogWholeDiff(t *testing.T) {
	dir := tuiProjectDir(t)
	var old, repl []string
	for i := 1; i <= 40; i++ {
		old = append(old, fmt.Sprintf("line %02d", i))
		repl = append(repl, fmt.Sprintf("LINE %02d", i))
	}
	writeFiles(t, dir, map[string]string{"big.txt": strings.Join(old, "\n") + "\n"})
	in, _ := json.Marshal(map[string]any{"path": "big.txt", "edits": []map[string]string{{"old": strings.Join(old, "\n"), "new": strings.Join(repl, "\n")}}})
	srv := fakellm.New(call("e1", "edit_file", string(in)), say("Edited."))
	defer srv.Close()
	tt := startTUI(t, 80, 24, dir, tuiEnv(t, srv))
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("shout")
	s := tt.settled("d shows the whole diff")
	if strings.Contains(s, "+LINE 40") {
		t.Fatalf("the folded diff shows everything already:\n%s", tuiFrame(s))
	}
	tt.keys("d")
	tt.settled("diff lines 1–")
	for i := 0; i < 12 && !strings.Contains(tt.screen(), "+LINE 40"); i++ {
		tt.keys("Space")
		time.Sleep(50 * time.Millisecond)
	}
	s = tt.waitFor("+LINE 40")
	if !strings.Contains(s, "of 81") {
		t.Errorf("the expanded diff does not say where it is:\n%s", tuiFrame(s))
	}
	tt.keys("y")
	tt.settled("Edited.")
}

// The elapsed time of a call stops while its question waits; a call the interrupt
// cut stays in the scrollback as interrupted; a saved rule is said without a warning
// sign; a compaction is said once.
func TestTUITimerInterruptNoticesCompaction(t *testing.T) {
	srv := fakellm.New(
		call("b0", "bash", `{"command":"sleep 4","run_in_background":true}`),
		call("b1", "bash", `{"command":"sleep 30"}`), // interrupted: the turn ends there
		call("b2", "bash", `{"command":"echo saved"}`),
		say("Second turn over."),
		say("The summary of the conversation."),
	)
	defer srv.Close()
	dir := tuiProjectDir(t)
	tt := startTUI(t, 100, 30, dir, tuiEnv(t, srv), "--trust")
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("wait")
	tt.settled("Allow bash?") // the background sleep's
	tt.keys("y")
	// The question of sleep 30 waits while the background sleep runs out. The status
	// line's count of background tasks is redrawn by the same once-a-second tick that
	// would move the call's clock: when the count goes, seconds have passed with the
	// question on screen, and the clock must still say 0s.
	s := tt.waitUntil("the question of sleep 30", func(s string) bool {
		return strings.Contains(s, "Allow bash?") && strings.Contains(s, "sleep 30 (")
	})
	if !strings.Contains(s, "1 background task(s)") {
		t.Logf("the background sleep ended before the question of sleep 30 was seen: the clock's pause is not checked this time")
	}
	s = tt.waitUntil("the background sleep's end, the question still waiting", func(s string) bool {
		return strings.Contains(s, "Allow bash?") && !strings.Contains(s, "background task(s)")
	})
	if !strings.Contains(s, "sleep 30 (0s)") {
		t.Errorf("the elapsed time ran while the question waited:\n%s", tuiFrame(s))
	}
	tt.keys("y")
	tt.waitFor("sleep 30 (")
	tt.keys("Escape")
	s = tt.settled("⏹ interrupted")
	if !strings.Contains(s, "🛠️ bash: sleep 30 (interrupted)") {
		t.Errorf("the interrupted call is not left as interrupted:\n%s", tuiFrame(s))
	}
	tt.typeLine("save a rule")
	tt.settled("Allow bash?")
	tt.keys("3", "Enter")
	s = tt.settled("Second turn over.")
	if !regexp.MustCompile(`✓ saved the rule bash:echo\( \.\*\)\?`).MatchString(s) || strings.Contains(s, "⚠ saved") {
		t.Errorf("the saved rule is not said as a success:\n%s", tuiFrame(s))
	}
	if b, err := os.ReadFile(filepath.Join(dir, ".gantry", "permissions.yaml")); err != nil || !strings.Contains(string(b), "bash:echo( .*)?") {
		t.Errorf("the rules file: %v %s", err, b)
	}
	tt.typeLine("/compact")
	s = tt.settled("compacted the conversation")
	if n := strings.Count(s, "compacted"); n != 1 {
		t.Errorf("the compaction is said %d times:\n%s", n, tuiFrame(s))
	}
}

// A PreToolUse hook's rewritten input is what the terminal UI's tool line shows, with a
// note that a hook changed it.
func TestTUIHookRewriteIsShown(t *testing.T) {
	dir := tuiProjectDir(t)
	writeFiles(t, dir, map[string]string{
		"rewrite.sh":          "#!/bin/sh\necho '{\"hookSpecificOutput\":{\"hookEventName\":\"PreToolUse\",\"updatedInput\":{\"command\":\"echo rewritten\"}}}'\n",
		".gantry/config.yaml": "permissionMode: yolo\nhooks:\n  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: command\n          command: sh rewrite.sh\n",
	})
	srv := fakellm.New(call("b1", "bash", `{"command":"echo original"}`), say("Hooked."))
	defer srv.Close()
	tt := startTUI(t, 100, 30, dir, tuiEnv(t, srv), "--trust")
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("echo")
	s := tt.settled("Hooked.")
	if !strings.Contains(s, "🛠️ bash: echo rewritten\n  (a PreToolUse hook rewrote the input)\n  rewritten") || strings.Contains(s, "echo original") {
		t.Errorf("the screen shows:\n%s", tuiFrame(s))
	}
}
