package main

// A pane is one program (gantry, crush) in its own tmux server, 100 × 30, read
// through a tmux control client: how the terminal UI's measurements (tui.go) start,
// drive and read it.

import (
	"bufio"
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
)

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
