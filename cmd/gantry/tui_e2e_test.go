package main

// End-to-end tests of the terminal UI: the built gantry runs in a private tmux
// server (its own socket, killed when the test ends) against the fake model, keys are
// typed with send-keys and the screen is read with capture-pane. tmux is required:
// without it these tests fail (.ci/run installs it).

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// tuiWait is how long a screen may take to show what a test waits for.
const tuiWait = 10 * time.Second

// tuiTerm is one gantry running in its own tmux server, in a pane of width × height.
type tuiTerm struct {
	t      *testing.T
	socket string
	pid    int // gantry's: the pane runs it directly, with no shell between
}

// needTmux ends the test as testenv says when tmux is missing: the terminal UI is
// only tested through it.
func needTmux(t *testing.T) {
	t.Helper()
	testenv.Need(t, "tmux")
}

// startTUI runs gantry with args in dir inside a new tmux server of width × height.
// The server, and with it gantry, is killed when the test ends; the test fails when
// gantry outlives it.
func startTUI(t *testing.T, width, height int, dir string, environ []string, args ...string) *tuiTerm {
	t.Helper()
	needTmux(t)
	conf := filepath.Join(t.TempDir(), "tmux.conf")
	// No status bar (the pane is the whole window), keep a dead pane to read its exit
	// status, and history enough for a goroutine dump. (tmux 3.3a's server dies at
	// start with window-size in the configuration; no client sets a size anyway.)
	err := os.WriteFile(conf, []byte("set -g status off\nset -g remain-on-exit on\nset -g history-limit 20000\n"), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	// A socket of its own in a short temporary folder (a socket's path is limited to
	// about 100 bytes), removed with it.
	sockDir, err := os.MkdirTemp("", "gtmux")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(sockDir) })
	tt := &tuiTerm{t: t, socket: filepath.Join(sockDir, "s")}
	var clean []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "TMUX=") && !strings.HasPrefix(kv, "TMUX_PANE=") {
			clean = append(clean, kv)
		}
	}
	cmd := exec.Command("tmux", append([]string{"-S", tt.socket, "-f", conf, "new-session", "-d", "-s", "g",
		"-x", strconv.Itoa(width), "-y", strconv.Itoa(height), "-c", dir, "--", binary}, args...)...)
	cmd.Env = clean
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting tmux: %v\n%s", err, out)
	}
	// A watchdog: a control client reading from this process, writing to /dev/null (a
	// pipe to this process would hang tmux when this process dies). Should the test
	// binary die before its cleanups run (a timeout), the client goes, and with
	// destroy-unattached the session, the server and gantry go too. The options are
	// set by the client's own command list, after its attach-session: written to its
	// input instead, they could run before it had attached (input is read from the
	// start), and destroy-unattached then destroyed the unattached session at once.
	watch := exec.Command("tmux", "-S", tt.socket, "-C", "attach-session", "-t", "g",
		";", "refresh-client", "-f", "no-output", ";", "set", "-g", "destroy-unattached", "on")
	w, err := watch.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := watch.Start(); err != nil {
		t.Fatalf("starting the tmux watchdog: %v", err)
	}
	t.Cleanup(func() { w.Close(); watch.Wait() })
	t.Cleanup(tt.stop)
	deadline := time.Now().Add(tuiWait)
	for strings.TrimSpace(tt.tmux("show-options", "-gv", "destroy-unattached")) != "on" {
		if time.Now().After(deadline) {
			t.Fatalf("the tmux watchdog did not attach within %v", tuiWait)
		}
		time.Sleep(10 * time.Millisecond)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(tt.tmux("display-message", "-p", "-t", "g", "#{pane_pid}")))
	if err != nil {
		t.Fatalf("gantry's pid: %v", err)
	}
	tt.pid = pid
	return tt
}

// tmux runs a tmux command on the test's server and returns its output.
func (tt *tuiTerm) tmux(args ...string) string {
	tt.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-S", tt.socket}, args...)...).CombinedOutput()
	if err != nil {
		tt.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// stop kills the tmux server and makes sure gantry is gone.
func (tt *tuiTerm) stop() {
	_ = exec.Command("tmux", "-S", tt.socket, "kill-server").Run()
	if tt.pid == 0 {
		return
	}
	deadline := time.Now().Add(5 * time.Second)
	for tuiAlive(tt.pid) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(tt.pid, syscall.SIGKILL)
			tt.t.Errorf("gantry (pid %d) outlived its tmux server by 5 s", tt.pid)
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// alive reports whether pid runs (a zombie does not).
func tuiAlive(pid int) bool {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return false
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

// screen is the visible pane as text; flags add capture-pane options (-e for the
// escape sequences of colours and attributes, -J to join wrapped lines).
func (tt *tuiTerm) screen(flags ...string) string {
	tt.t.Helper()
	return tt.tmux(append([]string{"capture-pane", "-p", "-t", "g"}, flags...)...)
}

// waitFor polls the visible screen until it shows want, and returns that screen.
func (tt *tuiTerm) waitFor(want string) string {
	tt.t.Helper()
	return tt.waitUntil(fmt.Sprintf("%q", want), func(s string) bool { return strings.Contains(s, want) })
}

// waitUntil polls the visible screen until ok holds, or fails the test with the last
// screen after tuiWait.
func (tt *tuiTerm) waitUntil(what string, ok func(screen string) bool) string {
	tt.t.Helper()
	deadline := time.Now().Add(tuiWait)
	for {
		s := tt.screen()
		if ok(s) {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("after %v the screen does not show %s; it shows:\n%s", tuiWait, what, tuiFrame(s))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// frameOf draws a capture between rules, so that blank lines at its ends show.
func tuiFrame(s string) string {
	return "────────\n" + strings.TrimRight(s, "\n") + "\n────────"
}

// settled waits until the screen shows want and stays the same for 150 ms (about
// ten frames), and returns it: a frame drawn while output is being printed can be
// momentarily stale.
func (tt *tuiTerm) settled(want string) string {
	tt.t.Helper()
	prev := tt.waitFor(want)
	deadline := time.Now().Add(tuiWait)
	for {
		time.Sleep(150 * time.Millisecond)
		s := tt.waitFor(want)
		if s == prev {
			return s
		}
		if time.Now().After(deadline) {
			tt.t.Fatalf("the screen did not settle in %v; it last showed:\n%s", tuiWait, tuiFrame(s))
		}
		prev = s
	}
}

// typeLine types text and presses Enter.
func (tt *tuiTerm) typeLine(text string) {
	tt.t.Helper()
	tt.tmux("send-keys", "-t", "g", "-l", text)
	tt.tmux("send-keys", "-t", "g", "Enter")
}

// keys sends tmux key names (Escape, C-c, Enter, y, …).
func (tt *tuiTerm) keys(names ...string) {
	tt.t.Helper()
	tt.tmux(append([]string{"send-keys", "-t", "g"}, names...)...)
}

// exited waits for gantry to end and returns its exit status, and whether tmux saw
// it end. The status is tmux's, or the kernel's (/proc/<pid>/stat) while gantry is a
// zombie that tmux has not reaped: on a loaded machine tmux 3.3a was seen to leave an
// exited gantry unreaped, its pane alive, for over 10 s.
func (tt *tuiTerm) exited() (code int, paneDead bool) {
	tt.t.Helper()
	deadline := time.Now().Add(tuiWait)
	var zombie time.Time
	for {
		f := strings.Fields(tt.tmux("display-message", "-p", "-t", "g", "#{pane_dead} #{pane_dead_status}"))
		if len(f) == 2 && f[0] == "1" {
			code, _ := strconv.Atoi(f[1])
			return code, true
		}
		if status, ok := zombieStatus(tt.pid); ok {
			if zombie.IsZero() {
				zombie = time.Now()
			} else if time.Since(zombie) > 2*time.Second {
				tt.t.Logf("gantry exited (status %d) but tmux has not reaped it after 2 s", status)
				return status, false
			}
		}
		if time.Now().After(deadline) {
			screen := tt.screen()
			// Go prints its goroutines on SIGQUIT: what gantry waits for.
			_ = syscall.Kill(tt.pid, syscall.SIGQUIT)
			// Go exits once it has printed them: wait for that, not for a guess.
			for end := time.Now().Add(5 * time.Second); time.Now().Before(end); time.Sleep(20 * time.Millisecond) {
				if _, z := zombieStatus(tt.pid); z || syscall.Kill(tt.pid, 0) != nil {
					break
				}
			}
			dump := tt.tmux("capture-pane", "-p", "-J", "-S", "-", "-t", "g")
			if i := strings.Index(dump, "SIGQUIT"); i >= 0 {
				dump = dump[i:]
			}
			tt.t.Fatalf("gantry did not exit within %v; the screen:\n%s\ngantry's goroutines (SIGQUIT):\n%s", tuiWait, tuiFrame(screen), dump)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// zombieStatus returns the exit status of pid when it is a zombie (exit_code, the
// 52nd field of /proc/<pid>/stat, as waitpid reports it).
func zombieStatus(pid int) (int, bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(s[i+1:]) // from the 3rd field, state
	if len(f) < 50 || f[0] != "Z" {
		return 0, false
	}
	ws, err := strconv.Atoi(f[49])
	if err != nil {
		return 0, false
	}
	if ws&0x7f != 0 {
		return 128 + ws&0x7f, true // killed by a signal, as a shell reports it
	}
	return ws >> 8 & 0xff, true
}

// updateCaptures rewrites the screens kept in testdata/tui-captures instead of
// comparing them: go test ./cmd/gantry -run TestTUI -update.
var updateCaptures = flag.Bool("update", false, "rewrite testdata/tui-captures/ from the screens the terminal UI tests see")

// What changes from run to run in a capture: gantry's version in the banner, the
// elapsed time of a running tool, the session's token count, the context meter and cost (estimated by
// the fake model from the size of each request).
var (
	captureVersion = regexp.MustCompile(`^gantry (?:dev [0-9a-f]{7}\+?|\S+) · `)
	captureElapsed = regexp.MustCompile(`\((?:\d+s|\d+m\d{2}s)\)`)
	captureTokens  = regexp.MustCompile(`\b\d+(?:\.\d+)?[kM]? tokens\b`)
	captureMeter   = regexp.MustCompile(`(?:<1|\b\d+)% context\b`)
	captureCost    = regexp.MustCompile(`<?\$\d+\.\d{2}\b`)
)

// normalizeCapture makes a screen comparable across runs: the project folder dir
// becomes ~/project, and the version, elapsed times, token counts and costs become
// placeholders; trailing blanks go.
func normalizeCapture(screen, dir string) string {
	if real, err := filepath.EvalSymlinks(dir); err == nil && real != dir {
		screen = strings.ReplaceAll(screen, real, "~/project")
	}
	screen = strings.ReplaceAll(screen, dir, "~/project")
	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	for i, l := range lines {
		if i == 0 {
			l = captureVersion.ReplaceAllLiteralString(l, "gantry <version> · ")
		}
		l = captureElapsed.ReplaceAllLiteralString(l, "(<elapsed>)")
		l = captureTokens.ReplaceAllLiteralString(l, "<n> tokens")
		l = captureMeter.ReplaceAllLiteralString(l, "<n>% context")
		l = captureCost.ReplaceAllLiteralString(l, "$<cost>")
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

// checkCapture compares screen, normalised, with testdata/tui-captures/name, which
// people can quote as what the UI looks like; with -update it writes the file
// instead. A screen drawn while output is still arriving can be a frame behind,
// so when screen differs the pane is read again until it matches or tuiWait passes.
func (tt *tuiTerm) checkCapture(name, screen, dir string) {
	tt.t.Helper()
	path := filepath.Join("testdata", "tui-captures", name)
	got := normalizeCapture(screen, dir)
	if *updateCaptures {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			tt.t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			tt.t.Fatal(err)
		}
		return
	}
	b, err := os.ReadFile(path)
	if err != nil {
		tt.t.Fatalf("%v (go test ./cmd/gantry -run TestTUI -update writes it)", err)
	}
	want := string(b)
	deadline := time.Now().Add(tuiWait)
	for got != want {
		if time.Now().After(deadline) {
			tt.t.Errorf("the screen differs from %s (if the change is meant, rewrite it with go test ./cmd/gantry -run TestTUI -update):\n%s",
				path, captureDiff(want, got))
			return
		}
		time.Sleep(20 * time.Millisecond)
		got = normalizeCapture(tt.screen(), dir)
	}
}

// captureDiff shows want and got row by row, marking the rows that differ.
func captureDiff(want, got string) string {
	w, g := strings.Split(strings.TrimSuffix(want, "\n"), "\n"), strings.Split(strings.TrimSuffix(got, "\n"), "\n")
	var b strings.Builder
	for i := range max(len(w), len(g)) {
		var wl, gl string
		if i < len(w) {
			wl = w[i]
		}
		if i < len(g) {
			gl = g[i]
		}
		if wl == gl {
			fmt.Fprintf(&b, "  %s\n", wl)
			continue
		}
		fmt.Fprintf(&b, "- %s\n+ %s\n", wl, gl)
	}
	return b.String()
}

// tuiEnv is the clean environment (NO_COLOR=1) with the fake model as the provider.
func tuiEnv(t *testing.T, srv *fakellm.Server, extra ...string) []string {
	return env(t, append([]string{"ANTHROPIC_BASE_URL=" + srv.URL(), "ANTHROPIC_API_KEY=k"}, extra...)...)
}

// colour drops NO_COLOR from an environment: the UI draws in colour, as most people
// see it (tmux's TERM has colours).
func withColour(environ []string) []string {
	var out []string
	for _, kv := range environ {
		if !strings.HasPrefix(kv, "NO_COLOR=") {
			out = append(out, kv)
		}
	}
	return out
}

// projectDir is an empty project folder with a short path, so that the first line
// (version, model, folder) fits the terminal and saved captures read well.
func tuiProjectDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "gt")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

// statusShown reports whether the status line (" · mode <mode>") is on the screen.
const tuiStatusMark = " · mode "

func TestTUIPermissionDialogThenAnswer(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Let me count the lines."), fakellm.ToolCall("b1", "bash", `{"command":"echo $((6*7))-lines"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("There are **42** lines.")}},
	)
	defer srv.Close()
	dir := tuiProjectDir(t)
	tt := startTUI(t, 100, 30, dir, withColour(tuiEnv(t, srv)))
	tt.waitFor("Ask gantry, or /help")
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine("how many lines?")

	dialog := tt.settled("Allow bash?")
	for _, want := range []string{"echo $((6*7))-lines", "1. Yes", "4. No", "y yes"} {
		if !strings.Contains(dialog, want) {
			t.Errorf("the permission dialog lacks %q:\n%s", want, tuiFrame(dialog))
		}
	}
	if strings.Contains(dialog, "Ask gantry, or /help") {
		t.Errorf("the input shows under the dialog:\n%s", tuiFrame(dialog))
	}
	tt.checkCapture("permission-dialog.txt", dialog, dir)
	tt.keys("y")

	tt.waitFor("There are 42 lines.")
	final := tt.settled("⚙ 1 command(s)")
	for _, want := range []string{"› how many lines?", "Let me count the lines.", "bash: echo $((6*7))-lines", "  42-lines", "Ask gantry, or /help", tuiStatusMark + "default"} {
		if !strings.Contains(final, want) {
			t.Errorf("the main screen lacks %q:\n%s", want, tuiFrame(final))
		}
	}
	if strings.Contains(final, "Allow bash?") {
		t.Errorf("the dialog is still shown:\n%s", tuiFrame(final))
	}
	tt.checkCapture("main-screen.txt", final, dir)
	// In colour the same capture with -e has colour sequences: the NO_COLOR test's
	// check of their absence checks something.
	if !sgrColour.MatchString(tt.screen("-e")) {
		t.Errorf("the screen in colour has no colour sequences in capture-pane -e")
	}

	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	body, _ := json.Marshal(reqs[1].Body["messages"])
	if !strings.Contains(string(body), `"tool_use_id":"b1"`) || !strings.Contains(string(body), "42-lines") {
		t.Errorf("the command's output did not reach the model: %s", body)
	}
}

func TestTUIAskUserCard(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("q1", "ask_user", `{"question":"Which flavour do you want?","options":[{"label":"A"},{"label":"B"}]}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Flavour B it is.")}},
	)
	defer srv.Close()
	dir := tuiProjectDir(t)
	tt := startTUI(t, 100, 30, dir, withColour(tuiEnv(t, srv)))
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine("pick a flavour")

	card := tt.settled("Skip: let gantry decide")
	for _, want := range []string{"gantry asks", "Which flavour do you want?", "1. A", "2. B", "enter confirm"} {
		if !strings.Contains(card, want) {
			t.Errorf("the ask_user card lacks %q:\n%s", want, tuiFrame(card))
		}
	}
	tt.checkCapture("ask-user-card.txt", card, dir)
	tt.keys("2")
	tt.waitUntil("option 2 selected", func(s string) bool { return regexp.MustCompile(`›\s*2\. B`).MatchString(s) })
	tt.keys("Enter")

	tt.waitFor("Flavour B it is.")
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2", len(reqs))
	}
	result := tuiToolResult(t, reqs[1].Body, "q1")
	if !strings.Contains(result, "Which flavour do you want? → B") {
		t.Errorf("the answer B did not reach the model; the tool result is %q", result)
	}
}

// toolResult returns the text of the tool_result for the call id in a request body.
func tuiToolResult(t *testing.T, body map[string]any, id string) string {
	t.Helper()
	raw, _ := json.Marshal(body["messages"])
	var msgs []struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(raw, &msgs); err != nil {
		t.Fatal(err)
	}
	for _, m := range msgs {
		var blocks []struct {
			Type      string          `json:"type"`
			ToolUseID string          `json:"tool_use_id"`
			Content   json.RawMessage `json:"content"`
		}
		if json.Unmarshal(m.Content, &blocks) != nil {
			continue
		}
		for _, b := range blocks {
			if b.Type != "tool_result" || b.ToolUseID != id {
				continue
			}
			var s string
			if json.Unmarshal(b.Content, &s) == nil {
				return s
			}
			var parts []struct{ Text string }
			_ = json.Unmarshal(b.Content, &parts)
			var out []string
			for _, p := range parts {
				out = append(out, p.Text)
			}
			return strings.Join(out, "\n")
		}
	}
	t.Fatalf("no tool_result for %s in %s", id, raw)
	return ""
}

func TestTUIEscInterruptsARunningCommand(t *testing.T) {
	marker := fmt.Sprintf("tui-esc-%d", os.Getpid())
	sleep := fmt.Sprintf("30.%d", 100+os.Getpid()%900) // unique among this run's processes
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("s1", "bash", `{"command":"sleep `+sleep+`; echo `+marker+`"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Still here after the interrupt.")}},
	)
	defer srv.Close()
	t.Cleanup(func() {
		for _, p := range append(processesWith(marker), processesWith("sleep "+sleep)...) {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
	})
	tt := startTUI(t, 100, 30, t.TempDir(), tuiEnv(t, srv), "--permission-mode", "yolo")
	tt.waitFor(tuiStatusMark + "yolo")
	tt.typeLine("wait for a while")

	running := tt.waitFor("bash: sleep " + sleep)
	if !strings.Contains(running, "⏵") || !strings.Contains(running, "🛠") {
		t.Errorf("the running command is not shown as a live tool line:\n%s", tuiFrame(running))
	}
	deadline := time.Now().Add(tuiWait)
	for len(processesWith(marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the command never started")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tt.keys("Escape")
	tt.waitFor("⏹ interrupted")
	// The live line goes at the next frame after the print.
	tt.waitUntil("no live tool line", func(s string) bool { return !strings.Contains(s, "⏵") })
	deadline = time.Now().Add(3 * time.Second)
	for {
		left := append(processesWith(marker), processesWith("sleep "+sleep)...)
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the command outlived the interrupt by 3 s: pids %v", left)
		}
		time.Sleep(10 * time.Millisecond)
	}

	tt.typeLine("are you still there?")
	tt.waitFor("Still here after the interrupt.")
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d model requests, want 2 (the interrupted prompt's and the new one's)", n)
	}
}

// sgrColour matches the SGR sequences that set a colour: 30–37, 90–97 and 38;…
// foregrounds, 40–47, 100–107 and 48;… backgrounds, alone or among other parameters.
var sgrColour = regexp.MustCompile(`\x1b\[(?:[0-9;]*;)?(?:3[0-79]|4[0-79]|9[0-7]|10[0-7]|[34]8;[0-9;]*)(?:;[0-9;]*)?m`)

func TestTUINoColourThenCtrlCTwiceQuits(t *testing.T) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Here is a list:\n\n- **bold** item\n- `code` item\n\n```go\nfunc main() {}\n```\n\nDone."), fakellm.ToolCall("r1", "read_file", `{"path":"note.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("The note says *hello*.")}},
	)
	defer srv.Close()
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "note.txt"), []byte("hello\n"), 0o644)
	tt := startTUI(t, 100, 30, dir, tuiEnv(t, srv)) // env sets NO_COLOR=1
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine("read the note")
	// Without colours the Markdown renderer keeps the emphasis marks.
	tt.waitFor("The note says hello.") // emphasis: italic in colour, the bare word without

	esc := tt.screen("-e")
	if m := sgrColour.FindAllString(esc, -1); len(m) > 0 {
		t.Errorf("with NO_COLOR=1 the screen has colour sequences %q:\n%q", m, esc)
	}
	var seqs []string
	for _, s := range regexp.MustCompile(`\x1b\[[0-9;:?]*[A-Za-z]`).FindAllString(esc, -1) {
		seqs = append(seqs, strconv.Quote(s))
	}
	t.Logf("escape sequences in capture-pane -e with NO_COLOR=1: %v", seqs)

	tt.keys("C-c")
	tt.waitFor("press ctrl+c again to quit")
	tt.keys("C-c")
	code, dead := tt.exited()
	if code != 0 {
		t.Fatalf("gantry exited with %d after ctrl+c twice:\n%s", code, tuiFrame(tt.screen()))
	}
	end := tt.screen()
	if dead && !strings.Contains(end, "Pane is dead (status 0") {
		t.Errorf("the pane does not show that gantry ended:\n%s", tuiFrame(end))
	}
	t.Logf("the screen after quitting:\n%s", tuiFrame(end))
	if !strings.Contains(end, "The note says hello.") {
		t.Errorf("the session's output is not left on the screen after quitting:\n%s", tuiFrame(end))
	}
}

func TestTUIFitsAt80x24(t *testing.T) {
	long := strings.Repeat("This paragraph is long enough to wrap several times at eighty columns. ", 4)
	words := strings.Repeat("word-", 30) + "end"
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Looking around first."),
			fakellm.ToolCall("b1", "bash", `{"command":"printf '%s\\n' `+words+`"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(long + "\n\n- a list item that is also rather long, long enough to need wrapping at eighty columns too\n- short\n\nThe end.")}},
	)
	defer srv.Close()
	tt := startTUI(t, 80, 24, tuiProjectDir(t), withColour(tuiEnv(t, srv)), "--permission-mode", "yolo")
	tt.waitFor(tuiStatusMark + "yolo")
	tt.typeLine("look around")
	tt.waitFor("The end.")
	screen := tt.settled("⚙ 1 command(s)")

	lines := strings.Split(strings.TrimRight(screen, "\n"), "\n")
	if len(lines) > 24 {
		t.Errorf("the capture has %d rows", len(lines))
	}
	// What the UI lays out itself (Markdown, the live area) is never wrapped by the
	// terminal: a line of the capture with wrapped rows joined (-J) is a row of the
	// plain capture. A tool line and its output preview are printed as they are, so
	// the terminal wraps them; joined back they must be whole, not garbled.
	rows := map[string]bool{}
	for _, l := range lines {
		rows[strings.TrimRight(l, " ")] = true
	}
	verbatim := map[string]bool{"🛠️ bash: printf '%s\\n' " + words: true, "  " + words: true}
	for i, l := range strings.Split(strings.TrimRight(tt.screen("-J"), "\n"), "\n") {
		if l = strings.TrimRight(l, " "); !rows[l] && !verbatim[l] {
			t.Errorf("joined line %d was wrapped by the terminal: %q\nscreen:\n%s", i+1, l, tuiFrame(screen))
		}
	}
	if n := strings.Count(screen, tuiStatusMark); n != 1 {
		t.Errorf("the status line shows %d times:\n%s", n, tuiFrame(screen))
	}
	if n := strings.Count(screen, "Ask gantry, or /help"); n != 1 {
		t.Errorf("the input shows %d times:\n%s", n, tuiFrame(screen))
	}
	// The paragraph is wrapped by gantry, so its sentences run across rows: all four
	// are there once the rows are joined by spaces.
	if n := strings.Count(strings.Join(strings.Fields(screen), " "), "This paragraph is long enough to wrap several times at eighty columns."); n != 4 {
		t.Errorf("the paragraph's sentence shows %d times, want 4:\n%s", n, tuiFrame(screen))
	}
	if last := lines[len(lines)-1]; !strings.Contains(last, tuiStatusMark) {
		t.Errorf("the last row is not the status line: %q\n%s", last, tuiFrame(screen))
	}
}

// A terminal closed under a running command (tmux killed: SIGHUP) ends gantry as an
// interrupt does: the command's processes are stopped and nothing of gantry's is left
// writing in its folders, so the project folder can be removed at once.
func TestTUIHangupStopsEverything(t *testing.T) {
	marker := fmt.Sprintf("%d.%d", os.Getpid(), time.Now().UnixNano()%100000)
	srv := fakellm.New(call("h1", "bash", `{"command":"echo started; sleep `+marker+`"}`), say("done"))
	defer srv.Close()
	dir := tuiProjectDir(t)
	writeFiles(t, dir, map[string]string{".git/HEAD": "ref: refs/heads/main\n", "a.txt": "one\n"})
	tt := startTUI(t, 100, 30, dir, tuiEnv(t, srv), "--permission-mode", "yolo")
	tt.waitFor("Ask gantry, or /help")
	tt.typeLine("run it")
	tt.waitFor("started")
	deadline := time.Now().Add(tuiWait)
	for len(processesWith("sleep "+marker)) == 0 {
		if time.Now().After(deadline) {
			t.Fatal("the command is not running")
		}
		time.Sleep(10 * time.Millisecond)
	}
	tt.stop()
	if pids := processesWith("sleep " + marker); len(pids) > 0 {
		for _, p := range pids {
			_ = syscall.Kill(p, syscall.SIGKILL)
		}
		t.Fatalf("the command outlived gantry's hang-up: %v", pids)
	}
}
