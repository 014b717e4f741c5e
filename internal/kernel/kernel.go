// Package kernel runs persistent Python and JavaScript interpreters for the eval
// tool: a driver embedded in the binary speaks JSON lines with gantry on descriptors
// of its own (3 in, 4 out), so that nothing a cell prints can corrupt the protocol;
// the interpreter's own standard output and error (a subprocess's, C code's) are read
// as well. A kernel runs contained, like a bash command. A cell is interrupted through
// a control descriptor (5): a thread of the driver reads it and interrupts the cell
// from inside, so that the interrupt reaches the interpreter wherever it runs (in a
// sandbox's PID namespace gantry knows no pid of it).
package kernel

import (
	"bufio"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

//go:embed driver.py
var pythonDriver string

//go:embed driver.js
var nodeDriver string

// Languages are the kernels' languages.
var Languages = []string{"python", "javascript"}

// Bounds.
const (
	// keepText is what a cell keeps of its streamed text, head and tail each (the rest
	// is counted).
	keepText = 256 << 10
	// maxImages bounds the images of one cell.
	maxImages = 8
	// interruptGrace is how long an interrupted cell has to end before the kernel is
	// killed.
	interruptGrace = 3 * time.Second
	// startWait bounds a kernel's start (the interpreter's own imports).
	startWait = 30 * time.Second
)

// Options say how a kernel starts.
type Options struct {
	Language string // "python" or "javascript"
	// Interpreter is the program (python3, node); Dir the working folder; Env is added
	// to the inherited environment.
	Interpreter string
	Dir         string
	Env         []string
	// Policy is the session's: the kernel runs under its deny rules, sandbox and
	// environment, as a bash command does (nil: gantry's own).
	Policy *contain.Policy
}

// Kernel is one running interpreter.
type Kernel struct {
	Language string
	Version  string
	Started  time.Time

	proc    *contain.Process
	toK     *os.File // fd 3 of the kernel
	fromK   *os.File // fd 4 of the kernel
	ctl     *os.File // fd 5 of the kernel: a byte written interrupts the running cell
	msgs    chan message
	ended   chan struct{} // closed when the process has been reaped
	stopCtx context.CancelFunc
	dir     string // the driver's folder, removed at Close

	rawWake  chan struct{}    // a sync mark was read (a wake-up; marks counts them)
	wantWake [2]chan struct{} // the host reached a marked message (a wake-up for each stream's reader)

	mu     sync.Mutex
	sink   *Cell     // the cell running (raw output goes to it)
	rawAt  time.Time // when the streams last gave something
	marks  [2]int    // sync marks read on stdout, on stderr
	want   [2]int    // sync marks waited for so far
	passed [2]int    // marked messages the cell has taken in (what the streams gave after their mark may follow)
	log    strings.Builder
	once   sync.Once
}

type message struct {
	Type     string          `json:"type"`
	ID       json.RawMessage `json:"id"`
	Name     string          `json:"name"`
	Text     string          `json:"text"`
	Data     map[string]any  `json:"data"`
	Status   string          `json:"status"`
	Ename    string          `json:"ename"`
	Evalue   string          `json:"evalue"`
	Trace    string          `json:"traceback"`
	Args     json.RawMessage `json:"args"`
	Language string          `json:"language"`
	Version  string          `json:"version"`
	// Sync: the driver wrote a sync mark on its standard streams before this message.
	Sync bool `json:"sync"`
}

// Start starts a kernel and waits until its driver is ready.
func Start(ctx context.Context, o Options) (*Kernel, error) {
	dir, err := os.MkdirTemp("", "gantry-kernel-")
	if err != nil {
		return nil, fmt.Errorf("no folder for the kernel's driver: %w", err)
	}
	var argv []string
	env := append([]string{"PYTHONUNBUFFERED=1", "MPLBACKEND=Agg", "PYTHONDONTWRITEBYTECODE=1",
		"MPLCONFIGDIR=" + dir + "/mpl", "GANTRY=1", "PAGER=cat", "TERM=dumb"}, o.Env...)
	switch o.Language {
	case "python":
		p := dir + "/driver.py"
		if err := os.WriteFile(p, []byte(pythonDriver), 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		argv = []string{o.Interpreter, "-u", p}
	case "javascript":
		p := dir + "/driver.js"
		if err := os.WriteFile(p, []byte(nodeDriver), 0o600); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		argv = []string{o.Interpreter, "--expose-internals", "--max-old-space-size=4096", p}
	default:
		os.RemoveAll(dir)
		return nil, fmt.Errorf("no kernel for %q (there are %s)", o.Language, strings.Join(Languages, ", "))
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	ctlR, ctlW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		os.RemoveAll(dir)
		return nil, err
	}
	k := &Kernel{Language: o.Language, Started: time.Now(), toK: inW, fromK: outR, ctl: ctlW, msgs: make(chan message, 64),
		ended: make(chan struct{}), dir: dir, rawWake: make(chan struct{}, 1),
		wantWake: [2]chan struct{}{make(chan struct{}, 1), make(chan struct{}, 1)}}
	p := o.Policy.Process(contain.Spec{Argv: argv, Dir: o.Dir, Env: env, ExtraFiles: []*os.File{inR, outW, ctlR}})
	stdout, err := p.Cmd.StdoutPipe()
	if err == nil {
		var stderr io.ReadCloser
		if stderr, err = p.Cmd.StderrPipe(); err == nil {
			if err = p.Start(); err == nil {
				go k.raw("stdout", 0, stdout)
				go k.raw("stderr", 1, stderr)
			}
		}
	}
	inR.Close()
	outW.Close()
	ctlR.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		ctlW.Close()
		os.RemoveAll(dir)
		return nil, fmt.Errorf("%s did not start: %v", o.Interpreter, err)
	}
	k.proc = p
	pctx, cancel := context.WithCancel(context.Background())
	k.stopCtx = cancel
	go func() {
		p.Wait(pctx, 0, time.Second, nil)
		close(k.ended)
	}()
	go k.read()
	t := time.NewTimer(startWait)
	defer t.Stop()
	select {
	case m, ok := <-k.msgs:
		if ok && m.Type == "ready" {
			k.Version = m.Version
			return k, nil
		}
		k.Close()
		return nil, fmt.Errorf("the %s kernel did not start%s", o.Language, k.lastWords())
	case <-t.C:
		k.Close()
		return nil, fmt.Errorf("the %s kernel did not start within %v", o.Language, startWait)
	case <-ctx.Done():
		k.Close()
		return nil, ctx.Err()
	}
}

// read gives the driver's messages to msgs; it closes msgs when the driver's end
// closes (the kernel died, or a cell closed the descriptor).
func (k *Kernel) read() {
	r := bufio.NewReaderSize(k.fromK, 1<<20)
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			var m message
			if json.Unmarshal(line, &m) == nil {
				k.msgs <- m
			}
		}
		if err != nil {
			close(k.msgs)
			return
		}
	}
}

// Alive tells whether the kernel still runs.
func (k *Kernel) Alive() bool {
	select {
	case <-k.ended:
		return false
	default:
		return true
	}
}

// Ended is closed once the kernel's processes have ended and been reaped.
func (k *Kernel) Ended() <-chan struct{} { return k.ended }

// Pid is the kernel's process (the init of its PID namespace where there is one).
func (k *Kernel) Pid() int { return k.proc.Pid() }

// Close kills the kernel and everything it started, and waits for them.
func (k *Kernel) Close() {
	k.once.Do(func() {
		k.toK.Close()
		k.ctl.Close()
		if k.stopCtx != nil {
			k.stopCtx()
			<-k.ended
		}
		k.fromK.Close()
		os.RemoveAll(k.dir)
	})
}
