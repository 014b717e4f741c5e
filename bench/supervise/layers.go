package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/shell"
)

// landlockEnv, set in the environment, makes the layers run measure only the rows the
// Landlock backend changes (the run of itself with bubblewrap hidden from PATH).
const landlockEnv = "GANTRY_BENCH_LANDLOCK"

// layer is one way of running `bash -c true`, each adding one layer to the one
// before it.
type layer struct {
	name, adds string
	run        func() error
}

// layers measures, alternated round by round, what each layer a bash call goes
// through costs over a bare `bash -c true`: the process group, the PID-namespace
// init helper, the exec supervisor, the sandbox, and the bash tool around them
// (its decoding, its output capture and result). gantry, when given, is timed as the
// helper's binary beside this one (the helper is the binary that starts it:
// /proc/self/exe), since gantry's size and package inits are paid by every call.
func layers(n int, gantry string) {
	allow := func(contain.Exec) contain.Refusal { return contain.Refusal{} }
	wd, err := os.Getwd()
	if err != nil {
		fatal(err)
	}
	home, _ := os.UserHomeDir()
	sb := &contain.Sandbox{Writable: []string{wd, "/tmp", os.TempDir(), home + "/.cache"}, Network: true}
	backend, why := contain.SandboxStatus()
	landlock := os.Getenv(landlockEnv) != ""
	bashTool := shell.Tools(shell.Options{Policy: &contain.Policy{Judge: allow, Sandbox: func() *contain.Sandbox { return sb }}})[0]
	raw, _ := json.Marshal(map[string]any{"command": "true"})
	env := tool.Env{Cwd: wd}
	ls := []layer{
		{"bare", "os/exec: bash -c true", func() error { return exec.Command("bash", "-c", "true").Run() }},
		{"group", "contain, Plain: a session and process group of its own, killed whole at the end", func() error {
			return runContained(contain.Options{Plain: true})
		}},
		{"helper", "the PID-namespace init helper (this binary started again as init)", func() error { return runContained(contain.Options{}) }},
		{"supervisor", "the seccomp exec supervisor judging each exec", func() error { return runContained(contain.Options{Judge: allow}) }},
		{"sandbox", fmt.Sprintf("the sandbox (%s)", backend), func() error { return runContained(contain.Options{Judge: allow, Sandbox: sb}) }},
		{"tool", "the bash tool: decoding, the process as above, output capture and the result", func() error {
			inv, msg := bashTool.Decode(env, raw)
			if msg != "" {
				return fmt.Errorf("bash refused: %s", msg)
			}
			if r := inv.Run(context.Background()); r.IsError {
				return fmt.Errorf("bash failed: %s", r.Text)
			}
			return nil
		}},
	}
	if gantry != "" && !landlock {
		self, err := os.Executable()
		if err != nil {
			fatal(err)
		}
		ls = append(ls,
			layer{"init:bench", "this binary run as `__gantry_contain probe` (the helper's start and exit)", func() error {
				return probe(self)
			}},
			layer{"init:gantry", "gantry's binary run so: what the helper costs in gantry over this binary", func() error {
				return probe(gantry)
			}})
	}
	if landlock {
		ls = []layer{ls[0], ls[3], {"sandbox", "the sandbox (Landlock, in the helper)", ls[4].run}}
	}
	times := make([][]time.Duration, len(ls))
	for range n {
		for i, l := range ls {
			start := time.Now()
			if err := l.run(); err != nil {
				fatal(fmt.Errorf("%s: %w", l.name, err))
			}
			times[i] = append(times[i], time.Since(start))
		}
	}
	if landlock {
		fmt.Printf("\n# Landlock (bubblewrap hidden from PATH), median of %d\n", n)
	} else {
		fmt.Printf("# one `bash -c true` per layer, median of %d, alternated (sandbox backend: %s%s)\n", n, backend, note(why))
	}
	fmt.Printf("%-12s %10s %10s  %s\n", "layer", "median", "+ layer", "what it adds")
	for i, l := range ls {
		m := median(times[i])
		step := ""
		switch {
		case strings.HasPrefix(l.name, "init:gantry"):
			step = fmt.Sprintf("%+.2f", ms(m-median(times[i-1])))
		case i > 0 && !strings.HasPrefix(l.name, "init:"):
			step = fmt.Sprintf("%+.2f", ms(m-median(times[i-1])))
		}
		fmt.Printf("%-12s %7.2f ms %10s  %s\n", l.name, ms(m), step, l.adds)
	}
	if !landlock && backend == contain.BackendBubblewrap {
		landlockRun(n)
	}
}

// landlockRun runs this benchmark again with bubblewrap hidden from PATH, so that the
// sandbox falls back to Landlock.
func landlockRun(n int) {
	bwrap, err := exec.LookPath("bwrap")
	if err != nil {
		return
	}
	var keep []string
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if _, err := os.Stat(filepath.Join(d, "bwrap")); err == nil || d == filepath.Dir(bwrap) {
			continue
		}
		keep = append(keep, d)
	}
	// bash and true live beside bwrap (/usr/bin): give them a folder of their own.
	dir, err := os.MkdirTemp("", "supervise-path-")
	if err != nil {
		fatal(err)
	}
	defer func() { _ = os.RemoveAll(dir) }()
	for _, c := range []string{"bash", "true"} {
		if p, err := exec.LookPath(c); err == nil {
			if err := os.Symlink(p, filepath.Join(dir, c)); err != nil {
				fatal(err)
			}
		}
	}
	self, err := os.Executable()
	if err != nil {
		fatal(err)
	}
	cmd := exec.Command(self, "-layers", "-n", fmt.Sprint(n))
	cmd.Env = append(os.Environ(), landlockEnv+"=1", "PATH="+strings.Join(append([]string{dir}, keep...), string(os.PathListSeparator)))
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stderr
	if err := cmd.Run(); err != nil {
		fatal(fmt.Errorf("the Landlock run: %w", err))
	}
}

// probe runs bin as the helper's probe, in a process group of its own.
// It gets its lifeline (descriptor 3, a pipe whose write end this process holds) as
// gantry gives it: without one it takes gantry for dead and kills what it can.
func probe(bin string) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	defer func() { _ = w.Close() }()
	cmd := exec.Command(bin, "__gantry_contain", "probe")
	cmd.ExtraFiles = []*os.File{r}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	_ = r.Close()
	if err != nil {
		return err
	}
	return cmd.Wait()
}

// runContained runs `bash -c true` once under o.
func runContained(o contain.Options) error {
	p := contain.New("true", o)
	if err := p.Start(); err != nil {
		return err
	}
	end := p.Wait(context.Background(), time.Minute, time.Second, nil)
	if end.Err != nil {
		return end.Err
	}
	if f := p.Fault() + p.SandboxFault(); f != "" {
		return fmt.Errorf("contain: %s", f)
	}
	return nil
}

func note(why string) string {
	if why == "" {
		return ""
	}
	return ": " + why
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func fatal(err error) {
	fmt.Fprintln(os.Stderr, "bench/supervise:", err)
	os.Exit(1)
}
