package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
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
