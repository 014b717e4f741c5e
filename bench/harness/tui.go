package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// The terminal UI is measured inside tmux: gantry runs in a pane of 100 × 30 of a
// private tmux server, and the harness reads the screen through a tmux control client
// (`tmux -C`, one connection: a capture-pane takes about 0.15 ms, where running the
// tmux command takes 3 ms and a fork that competes with gantry for the CPU).

// stampEnv makes the harness a launcher: started with it set, the harness writes the
// time to that file and becomes the program named by its arguments (exec, same pid).
// The time is thus taken in the process that becomes gantry, just before the exec.
const stampEnv = "BENCH_TUI_STAMP"

func init() {
	file := os.Getenv(stampEnv)
	if file == "" {
		return
	}
	os.Unsetenv(stampEnv)
	now := time.Now().UnixNano()
	check(os.WriteFile(file, []byte(strconv.FormatInt(now, 10)), 0o644))
	err := syscall.Exec(os.Args[1], os.Args[1:], os.Environ())
	fail("exec " + os.Args[1] + ": " + err.Error())
}

// pollEvery is the pause between two captures while waiting for the first frame.
const pollEvery = 2 * time.Millisecond

// clockTick is the unit of utime and stime in /proc/<pid>/stat (USER_HZ).
const clockTick = 10 * time.Millisecond

// tui measures the terminal UI: start to the first frame, idle CPU, a 300-turn session
// and a 20,000-word answer against print mode. Without tmux it prints a note instead.
func (h *harness) tui(runs, sessions int, crush string) {
	if _, err := exec.LookPath("tmux"); err != nil {
		fmt.Println("| terminal UI | not measured: tmux is not installed | — |")
		return
	}
	self, err := os.Executable()
	checkTUI(err)
	checkTUI(os.WriteFile(filepath.Join(h.dir, ".tmux.conf"), []byte("set -g status off\nset -g remain-on-exit on\n"), 0o644))

	// Inside tmux (TMUX set) the colour detection of lipgloss and bubbletea runs
	// `tmux info`, twice; with TMUX unset it reads only the environment and terminfo,
	// as in any other terminal.
	for _, outside := range []bool{false, true} {
		var frames, captures []float64
		for i := 0; i < runs; i++ {
			p := h.startUI(self, newTimedServer(), outside)
			frames = append(frames, p.firstFrame)
			captures = append(captures, p.captureMS)
			p.quit()
		}
		how := "in tmux"
		if outside {
			how = "TMUX unset"
		}
		fmt.Printf("| terminal UI: start → first frame (status line on the screen), %s, median of %d | %.1f ms (min %.1f, max %.1f; polled every %v, a capture takes %.2f ms) | < 50 ms |\n",
			how, runs, median(frames), minOf(frames), maxOf(frames), pollEvery, median(captures))
	}

	h.idle(self, crush)
	if sessions == 0 {
		return
	}

	var rss, cpu, wall []float64
	for i := 0; i < sessions; i++ {
		r, c, w := h.tuiSession300(self)
		rss, cpu, wall = append(rss, r), append(cpu, c), append(wall, w)
	}
	fmt.Printf("| terminal UI: 300-turn session (text + bash echo each, yolo), median of %d | peak RSS %.1f MB (max %.1f), CPU %.0f ms, %.1f s wall | RSS < 60 MB |\n",
		sessions, median(rss), maxOf(rss), median(cpu), median(wall))

	long := longAnswer(20000)
	var uiLong, uiShort, prLong, prShort []float64
	for i := 0; i < sessions; i++ {
		uiLong = append(uiLong, h.tuiAnswerCPU(self, long))
		uiShort = append(uiShort, h.tuiAnswerCPU(self, "ok"))
		prLong = append(prLong, h.printAnswerCPU(long))
		prShort = append(prShort, h.printAnswerCPU("ok"))
	}
	fmt.Printf("| CPU to stream a 20,000-word Markdown answer (~6,700 deltas), terminal UI vs print mode, median of %d | UI %.0f ms, print %.0f ms (a one-word answer: UI %.0f ms, print %.0f ms) | recorded |\n",
		sessions, median(uiLong), median(prLong), median(uiShort), median(prShort))
}

// idleRounds is how many times gantry and crush are measured idle, alternated.
const idleRounds = 3

// idle measures gantry's terminal UI and crush's side by side, alternated, on the same
// machine and in the same pane: start → first frame, then the CPU time and wake-ups of
// 5 s with nothing happening, 2 s after the main screen is up (gantry's first
// checkpoint and crush's start-up work are over by then). crush is the binary named by
// -crush or found on PATH; without one its row says so.
func (h *harness) idle(self, crush string) {
	if crush == "" {
		crush, _ = exec.LookPath("crush")
	}
	measure := func(p *pane) (cpuMS, wakeups float64) {
		time.Sleep(2 * time.Second)
		before, sw := p.cpu(), p.wakeups()
		time.Sleep(5 * time.Second)
		return ms(p.cpu() - before), float64(p.wakeups()-sw) / 5
	}
	var gCPU, gWake, gFrame, cCPU, cWake, cFrame []float64
	for i := 0; i < idleRounds; i++ {
		p := h.startUI(self, newTimedServer(), true)
		c, w := measure(p)
		gCPU, gWake, gFrame = append(gCPU, c), append(gWake, w), append(gFrame, p.firstFrame)
		p.quit()
		if crush == "" {
			continue
		}
		p = h.startCrush(self, crush)
		c, w = measure(p)
		cCPU, cWake, cFrame = append(cCPU, c), append(cWake, w), append(cFrame, p.firstFrame)
		p.kill()
	}
	fmt.Printf("| terminal UI: idle CPU over 5 s (utime+stime, 2 s after the first frame; TMUX unset), median of %d | gantry %.0f ms (max %.0f), %.0f wake-ups/s (voluntary context switches of its threads) | 0 |\n",
		idleRounds, median(gCPU), maxOf(gCPU), median(gWake))
	if crush == "" {
		fmt.Println("| the same, crush | not measured: no crush binary (-crush PATH, or crush on PATH) | — |")
		return
	}
	fmt.Printf("| the same, crush (%s), alternated with gantry | crush %.0f ms (max %.0f), %.0f wake-ups/s | gantry ≤ crush |\n",
		filepath.Base(crush), median(cCPU), maxOf(cCPU), median(cWake))
	fmt.Printf("| start → first frame in those rounds: gantry (status line) / crush (its logo) | %.1f / %.1f ms | — |\n",
		median(gFrame), median(cFrame))
}

// startCrush starts crush in a pane, with a home of its own (no configuration but a
// provider's key, no metrics, no provider update from the network), waits for its
// first frame, and takes it past its first-run question to its main screen.
func (h *harness) startCrush(self, crush string) *pane {
	home := filepath.Join(h.dir, ".crush-home")
	checkTUI(os.RemoveAll(home))
	checkTUI(os.RemoveAll(filepath.Join(h.dir, ".crush")))
	checkTUI(os.MkdirAll(home, 0o755))
	env := append(terminalEnv("HOME=", "XDG_"), "HOME="+home, "ANTHROPIC_API_KEY=bench", "CRUSH_DISABLE_METRICS=1",
		"CRUSH_DISABLE_PROVIDER_AUTO_UPDATE=1", "DO_NOT_TRACK=1")
	p := h.launch(env, "exec env -u TMUX "+shellQuote(self)+" "+shellQuote(crush), "Charm")
	deadline := time.Now().Add(10 * time.Second)
	for {
		screen := p.ctl.run("capture-pane -p -t g")
		if strings.Contains(screen, "Ready") {
			return p
		}
		if strings.Contains(screen, "initialize this project") {
			p.ctl.run("send-keys -t g Right")
			p.ctl.run("send-keys -t g Enter")
		}
		if time.Now().After(deadline) {
			failTUI("crush: no main screen after 10 s:\n" + screen)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// tmuxRuns numbers the tmux servers started.
var tmuxRuns int

// live are the panes whose tmux server runs: a failure kills them before the
// harness exits, so that no tmux or gantry is left behind.
var live = map[*pane]bool{}

func failTUI(msg string) {
	for p := range live {
		p.kill()
	}
	fail(msg)
}

func checkTUI(err error) {
	if err != nil {
		failTUI(err.Error())
	}
}

// kill ends the pane's tmux server and gantry at once.
func (p *pane) kill() {
	if p.serverPid > 0 {
		_ = syscall.Kill(p.serverPid, syscall.SIGKILL)
	}
	if p.pid > 0 {
		_ = syscall.Kill(p.pid, syscall.SIGKILL)
	}
	os.Remove(p.socket)
	delete(live, p)
}

// pane is one gantry in a tmux pane, read through a control client.
type pane struct {
	srv        *timedServer
	socket     string
	serverPid  int
	pid        int
	ctl        *tmuxCtl
	firstFrame float64 // ms from the exec to the first capture showing the status line
	captureMS  float64 // median time of a capture-pane
}

// startUI starts gantry's UI with extra arguments in a new tmux server and waits for
// its first frame; outsideTmux unsets TMUX for gantry.
func (h *harness) startUI(self string, srv *timedServer, outsideTmux bool, args ...string) *pane {
	cmdline := "exec " + shellQuote(self) + " " + shellQuote(h.bin)
	if outsideTmux {
		cmdline = "exec env -u TMUX " + shellQuote(self) + " " + shellQuote(h.bin)
	}
	for _, a := range args {
		cmdline += " " + shellQuote(a)
	}
	p := h.launch(h.uiEnv(srv.url), cmdline, " · mode ")
	p.srv = srv
	return p
}

// launch starts cmdline (which execs the harness as a launcher, then the program) in
// the pane of a new tmux server, with env, and waits for ready on its screen: the
// first frame.
func (h *harness) launch(env []string, cmdline, ready string) *pane {
	// A new socket each time: a server being killed may still answer on the old one.
	tmuxRuns++
	p := &pane{socket: filepath.Join(h.dir, fmt.Sprintf(".tmux-%d.sock", tmuxRuns))}
	// The server starts with a placeholder, so that the control client is attached and
	// polling before gantry starts.
	start := exec.Command("tmux", "-S", p.socket, "-f", filepath.Join(h.dir, ".tmux.conf"), "new-session", "-d", "-s", "g",
		"-x", "100", "-y", "30", "-c", h.dir, "--", "sleep", "600")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		failTUI(fmt.Sprintf("tmux new-session: %v: %s", err, out))
	}
	live[p] = true
	out, err := exec.Command("tmux", "-S", p.socket, "display-message", "-p", "#{pid}").Output()
	checkTUI(err)
	p.serverPid, err = strconv.Atoi(strings.TrimSpace(string(out)))
	checkTUI(err)
	p.ctl = attachCtl(p.socket)
	// Now and then tmux answers the first commands before the control client is
	// attached ("no current client"): try again.
	for try := 0; ; try++ {
		_, err := p.ctl.try("refresh-client -f no-output")
		if err == nil {
			break
		}
		if try == 100 {
			failTUI(err.Error())
		}
		time.Sleep(10 * time.Millisecond)
	}
	// When the harness ends, however it ends, the control client's input closes, the
	// session goes with its last client, and gantry with the server.
	p.ctl.run("set -g destroy-unattached on")
	stamp := filepath.Join(h.dir, ".tui-stamp")
	os.Remove(stamp)
	p.ctl.run("respawn-pane -k -t g -e " + stampEnv + "=" + stamp + " " + tmuxQuote(cmdline))
	var captures []float64
	for {
		t0 := time.Now()
		screen := p.ctl.run("capture-pane -p -t g")
		t1 := time.Now()
		captures = append(captures, ms(t1.Sub(t0)))
		if strings.Contains(screen, ready) {
			b, err := os.ReadFile(stamp)
			checkTUI(err)
			ns, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
			checkTUI(err)
			p.firstFrame = ms(t1.Sub(time.Unix(0, ns)))
			break
		}
		if len(captures) > 5000 {
			failTUI(fmt.Sprintf("terminal UI: no %q on the screen after 10 s:\n%s", ready, screen))
		}
		time.Sleep(pollEvery)
	}
	p.captureMS = median(captures)
	pid, err := strconv.Atoi(strings.TrimSpace(p.ctl.run("display -p -t g '#{pane_pid}'")))
	checkTUI(err)
	p.pid = pid
	return p
}

// terminalEnv is the harness's environment as a program in the pane gets it: without
// tmux's variables and NO_COLOR (a terminal usually has colour), nor those starting
// with one of drop.
func terminalEnv(drop ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "TMUX") || strings.HasPrefix(kv, "NO_COLOR=") ||
			slices.ContainsFunc(drop, func(p string) bool { return strings.HasPrefix(kv, p) }) {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// uiEnv is the environment of gantry in the pane: as h.command's, but in colour, as a
// terminal usually is.
func (h *harness) uiEnv(srvURL string) []string {
	return append(terminalEnv(), "ANTHROPIC_BASE_URL="+srvURL, "ANTHROPIC_API_KEY=bench",
		"GANTRY_DATA_DIR="+filepath.Join(h.dir, ".data"), "GANTRY_CONFIG_DIR="+filepath.Join(h.dir, ".config"),
		"GANTRY_PROVIDER=anthropic")
}

// waitFor polls the screen every 20 ms until it shows want (limit: a timeout).
func (p *pane) waitFor(want string, limit time.Duration) {
	deadline := time.Now().Add(limit)
	for {
		screen := p.ctl.run("capture-pane -p -t g")
		if strings.Contains(screen, want) {
			return
		}
		if time.Now().After(deadline) {
			failTUI(fmt.Sprintf("terminal UI: %q not on the screen after %v:\n%s", want, limit, screen))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// prompt types text and Enter.
func (p *pane) prompt(text string) {
	p.ctl.run("send-keys -t g -l " + tmuxQuote(text))
	p.ctl.run("send-keys -t g Enter")
}

// cpu is the process's utime+stime so far, from /proc/<pid>/stat.
func (p *pane) cpu() time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p.pid))
	checkTUI(err)
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:]) // fields from 3 (state) on
	ut, err := strconv.ParseInt(f[11], 10, 64)
	checkTUI(err)
	st, err := strconv.ParseInt(f[12], 10, 64)
	checkTUI(err)
	return time.Duration(ut+st) * clockTick
}

// wakeups counts the voluntary context switches of the process's threads so far.
func (p *pane) wakeups() int {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/status", p.pid))
	checkTUI(err)
	n := 0
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		for _, l := range strings.Split(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "voluntary_ctxt_switches:"); ok {
				k, err := strconv.Atoi(strings.TrimSpace(v))
				checkTUI(err)
				n += k
			}
		}
	}
	return n
}

// peakRSS is VmHWM from /proc/<pid>/status, in MB.
func (p *pane) peakRSS() float64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", p.pid))
	checkTUI(err)
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, err := strconv.ParseFloat(f[1], 64)
			checkTUI(err)
			return kb / 1024
		}
	}
	failTUI("no VmHWM in /proc/<pid>/status")
	return 0
}

// quit presses ctrl+c twice, waits for gantry to end and stops tmux and the server.
func (p *pane) quit() {
	p.ctl.run("send-keys -t g C-c")
	time.Sleep(50 * time.Millisecond)
	p.ctl.run("send-keys -t g C-c")
	deadline := time.Now().Add(10 * time.Second)
	for strings.TrimSpace(p.ctl.run("display -p -t g '#{pane_dead}'")) != "1" {
		if time.Now().After(deadline) {
			failTUI("terminal UI: gantry did not quit on ctrl+c twice")
		}
		time.Sleep(10 * time.Millisecond)
	}
	p.ctl.close() // the session goes with its last client (destroy-unattached)
	_ = exec.Command("tmux", "-S", p.socket, "kill-server").Run()
	os.Remove(p.socket)
	delete(live, p)
	if p.srv != nil {
		p.srv.close()
	}
}

// tuiSession300 runs one prompt whose answer takes 300 model turns, each a short text
// and a bash echo, and returns the peak RSS (MB), CPU time (ms) and wall time (s).
func (h *harness) tuiSession300(self string) (rssMB, cpuMS, wallS float64) {
	var turns []fakellm.Turn
	for i := 0; i < 300; i++ {
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(fmt.Sprintf("Step %d.", i)),
			fakellm.ToolCall(fmt.Sprintf("c%d", i), "bash", fmt.Sprintf(`{"command":"echo turn %d"}`, i))}})
	}
	turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Finished all 300 steps.")}})
	p := h.startUI(self, newTimedServer(turns...), false, "--permission-mode", "yolo", "--max-turns", "400")
	start := time.Now()
	p.prompt("do three hundred things")
	p.waitFor("⚙ 300 command(s)", 5*time.Minute)
	wall := time.Since(start)
	rssMB, cpu := p.peakRSS(), p.cpu()
	p.quit()
	if n := len(p.srv.arrivals); n != 301 {
		failTUI(fmt.Sprintf("terminal UI: the 300-turn session made %d requests", n))
	}
	return rssMB, ms(cpu), wall.Seconds()
}

// longAnswer is Markdown of n words: paragraphs of about 100 words with some
// emphasis and code, the last one ending with a marker sentence.
func longAnswer(n int) string {
	var b strings.Builder
	words := 0
	for i := 0; words < n-8; i++ {
		for j := 0; j < 14 && words < n-8; j++ {
			var seg string
			switch j % 7 {
			case 3:
				seg = "the **important** part of it "
			case 6:
				seg = "calls `fmt.Println` on the value "
			default:
				seg = fmt.Sprintf("paragraph %d goes on with more words ", i)
			}
			b.WriteString(seg)
			words += len(strings.Fields(seg))
		}
		b.WriteString("\n\n")
	}
	b.WriteString("That is the end of the long answer.")
	return b.String()
}

// tuiAnswerCPU streams answer as one model turn in the UI and returns gantry's CPU
// time (ms) from its start to the answer's last line on the screen.
func (h *harness) tuiAnswerCPU(self, answer string) float64 {
	p := h.startUI(self, newTimedServer(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}}), false)
	p.prompt("answer at length")
	last := answer[strings.LastIndexByte(answer, '\n')+1:]
	p.waitFor(last, 5*time.Minute)
	cpu := p.cpu()
	p.quit()
	return ms(cpu)
}

// printAnswerCPU is the same in print mode: utime+stime of gantry -p (rusage).
func (h *harness) printAnswerCPU(answer string) float64 {
	srv := newTimedServer(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(answer)}})
	defer srv.close()
	cmd := h.command(context.Background(), srv.url, "-p", "answer at length")
	cmd.Stdout = io.Discard
	checkTUI(cmd.Run())
	return ms(cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime())
}

// tmuxCtl is a tmux control-mode client: commands in, their output blocks out.
type tmuxCtl struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func attachCtl(socket string) *tmuxCtl {
	cmd := exec.Command("tmux", "-S", socket, "-C", "attach-session", "-t", "g")
	in, err := cmd.StdinPipe()
	checkTUI(err)
	out, err := cmd.StdoutPipe()
	checkTUI(err)
	checkTUI(cmd.Start())
	c := &tmuxCtl{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<16)}
	// The attach command's own output block comes first: skip blocks up to the answer
	// to a marked command, after which answers and commands pair up.
	_, err = io.WriteString(c.in, "display -p ctl-ready\n")
	checkTUI(err)
	for {
		if out, _ := c.block("attach"); strings.Contains(out, "ctl-ready") {
			break
		}
	}
	return c
}

// run sends one command and returns its output; a tmux error ends the harness.
func (c *tmuxCtl) run(command string) string {
	out, err := c.try(command)
	checkTUI(err)
	return out
}

// try sends one command and returns its output, or tmux's error.
func (c *tmuxCtl) try(command string) (string, error) {
	_, err := io.WriteString(c.in, command+"\n")
	checkTUI(err)
	return c.block(command)
}

// block reads the output block of the next command of this client. tmux also sends
// blocks for commands that are not the client's (flags 0: the attach itself, hooks),
// and notifications between blocks; both are skipped. A block ends with %end or
// %error and the same time, number and flags as its %begin.
func (c *tmuxCtl) block(command string) (string, error) {
	var out strings.Builder
	guard := ""
	for {
		line, err := c.out.ReadString('\n')
		if err != nil {
			failTUI(fmt.Sprintf("tmux control client: %v (running %q)", err, command))
		}
		line = strings.TrimSuffix(line, "\n")
		switch {
		case guard == "" && strings.HasPrefix(line, "%begin "):
			guard = strings.TrimPrefix(line, "%begin ")
			out.Reset()
		case guard != "" && (line == "%end "+guard || line == "%error "+guard):
			mine := strings.HasSuffix(guard, " 1")
			guard = ""
			switch {
			case !mine:
			case strings.HasPrefix(line, "%error "):
				return "", fmt.Errorf("tmux %q: %s", command, strings.TrimSpace(out.String()))
			default:
				return out.String(), nil
			}
		case guard != "":
			out.WriteString(line + "\n")
		}
	}
}

func (c *tmuxCtl) close() {
	_ = c.in.Close()
	_ = c.cmd.Wait()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// tmuxQuote quotes s as one argument of a tmux command.
func tmuxQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, `$`, `\$`).Replace(s) + `"`
}
