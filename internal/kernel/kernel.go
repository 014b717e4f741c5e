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
	"encoding/base64"
	"encoding/json"
	"errors"
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

// syncMark is what a driver writes on its standard output and error after a cell:
// all that came before it is the cell's.
const syncMark = "\x1egantry-sync\x1e"

// raw reads the interpreter's own output: to the running cell, else to the log. A
// sync mark is taken out and counted in marks[stream].
func (k *Kernel) raw(name string, stream int, r io.Reader) {
	buf := make([]byte, 32<<10)
	var carry string // the end of the last read, when it may be the start of a mark
	for {
		n, err := r.Read(buf)
		if n > 0 {
			text := carry + string(buf[:n])
			carry = ""
			for {
				i := strings.Index(text, syncMark)
				if i < 0 {
					break
				}
				k.deliver(name, text[:i])
				text = text[i+len(syncMark):]
				k.mu.Lock()
				k.marks[stream]++
				k.mu.Unlock()
				select {
				case k.rawWake <- struct{}{}:
				default:
				}
				k.holdAtMark(stream)
			}
			for l := min(len(syncMark)-1, len(text)); l > 0; l-- {
				if strings.HasPrefix(syncMark, text[len(text)-l:]) {
					carry, text = text[len(text)-l:], text[:len(text)-l]
					break
				}
			}
			k.deliver(name, text)
		}
		if err != nil {
			k.deliver(name, carry)
			return
		}
	}
}

func (k *Kernel) deliver(name, text string) {
	if text == "" {
		return
	}
	k.mu.Lock()
	k.rawAt = time.Now()
	if k.sink != nil {
		k.sink.stream(name, text)
	} else if k.log.Len() < 16<<10 {
		k.log.WriteString(text)
	}
	k.mu.Unlock()
}

func (k *Kernel) lastWords() string {
	k.mu.Lock()
	defer k.mu.Unlock()
	if s := strings.TrimSpace(k.log.String()); s != "" {
		lines := strings.Split(s, "\n")
		if len(lines) > 6 {
			lines = lines[len(lines)-6:]
		}
		return ": " + strings.Join(lines, " | ")
	}
	return ""
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

// Item is one piece of a cell's output, in order.
type Item struct {
	Kind string // "stdout", "stderr", "text" (a value or display), "markdown", "image"
	Text string
	PNG  []byte // Kind "image"
}

// Cell is what a cell gave.
type Cell struct {
	Items []Item
	// Result is the cell's last expression (its index in Items, -1: none).
	Result int
	// Error is the cell's exception ("" for none): its name, message and the cell's
	// own frames.
	Error string
	// Status: "ok", "error", "interrupted" (the cell caught no interrupt and ended),
	// "killed" (it did not end after the interrupt: the kernel was killed, its state is
	// lost), "died" (the kernel ended by itself: killed from outside, a cell that
	// closed the protocol, out of memory).
	Status string
	// Cut counts the characters of output not kept; ImagesCut the images.
	Cut, ImagesCut int
	// Interrupted: why the cell was interrupted ("" when it was not).
	Interrupted string

	headLen int
	tail    strings.Builder
}

func (c *Cell) stream(name, text string) {
	// Text is kept whole up to keepText, then only its tail (counted), as one item.
	if c.headLen < keepText {
		n := min(len(text), keepText-c.headLen)
		c.headLen += n
		c.add(name, text[:n])
		text = text[n:]
	}
	if text == "" {
		return
	}
	c.tail.WriteString(text)
	if c.tail.Len() > 2*keepText {
		t := c.tail.String()
		keep := t[len(t)-keepText:]
		c.Cut += len(t) - len(keep)
		c.tail.Reset()
		c.tail.WriteString(keep)
	}
}

func (c *Cell) add(kind, text string) {
	if n := len(c.Items); n > 0 && c.Items[n-1].Kind == kind && (kind == "stdout" || kind == "stderr") {
		c.Items[n-1].Text += text
		return
	}
	c.Items = append(c.Items, Item{Kind: kind, Text: text})
}

// finish moves the kept tail of the output into the items.
func (c *Cell) finish() {
	if c.tail.Len() == 0 {
		return
	}
	t := c.tail.String()
	if c.Cut > 0 {
		c.Items = append(c.Items, Item{Kind: "stdout", Text: fmt.Sprintf("\n[… %d characters of output cut …]\n", c.Cut)})
	}
	c.add("stdout", t)
	c.tail.Reset()
}

func (c *Cell) bundle(d map[string]any, result bool) {
	c.finish() // the text before it comes before it
	if result {
		c.Result = len(c.Items)
	}
	if s, ok := d["image/png"].(string); ok {
		png, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			c.Items = append(c.Items, Item{Kind: "text", Text: "[an image that could not be read]"})
			return
		}
		n := 0
		for _, it := range c.Items {
			if it.Kind == "image" {
				n++
			}
		}
		if n >= maxImages {
			c.ImagesCut++
			return
		}
		c.Items = append(c.Items, Item{Kind: "image", PNG: png})
		return
	}
	if s, ok := d["text/markdown"].(string); ok {
		c.Items = append(c.Items, Item{Kind: "markdown", Text: s})
		return
	}
	if s, ok := d["text/plain"].(string); ok {
		c.Items = append(c.Items, Item{Kind: "text", Text: s})
	}
}

// Relay runs a tool for a cell and returns its text, or its refusal or failure.
type Relay func(ctx context.Context, name string, args json.RawMessage) (text string, failed bool)

// RunOptions say how a cell runs.
type RunOptions struct {
	// Idle is the cell's budget of time without a sign of life (output, a display, a
	// tool call); it does not run while a relayed tool call does. 0: none.
	Idle time.Duration
	// Relay serves the cell's tool() calls (nil: they are refused).
	Relay Relay
}

// ErrBusy is the error of a cell sent while another runs.
var ErrBusy = errors.New("another cell is running in this kernel")

// Run runs one cell. When ctx ends or the idle budget is spent, the cell is
// interrupted (through the control descriptor, as SIGINT to the interpreter's main
// thread from inside), and the kernel killed if it does not end within a grace: the
// Cell says which. An error is returned only when the kernel cannot take the cell.
func (k *Kernel) Run(ctx context.Context, code string, o RunOptions) (*Cell, error) {
	c := &Cell{Result: -1}
	k.mu.Lock()
	if k.sink != nil {
		k.mu.Unlock()
		return nil, ErrBusy
	}
	k.sink = c
	k.mu.Unlock()
	defer func() {
		k.mu.Lock()
		k.sink = nil
		k.mu.Unlock()
	}()
	req, _ := json.Marshal(map[string]any{"type": "execute", "id": 1, "code": code})
	if _, err := k.toK.Write(append(req, '\n')); err != nil {
		return nil, fmt.Errorf("the kernel does not take cells: %v", err)
	}
	idle := o.Idle
	if idle <= 0 {
		idle = 1<<63 - 1
	}
	timer := time.NewTimer(idle)
	defer timer.Stop()
	var graceC <-chan time.Time
	interrupt := func(why string) {
		if c.Interrupted != "" {
			return
		}
		c.Interrupted = why
		// A kernel that no longer reads its control descriptor is killed after the
		// grace like one that ignores the interrupt.
		_, _ = k.ctl.Write([]byte{'i'})
		g := time.NewTimer(interruptGrace)
		graceC = g.C
	}
	done := ctx.Done()
	for {
		select {
		case m, ok := <-k.msgs:
			if !ok {
				k.settleRaw(c)
				c.Status = "died"
				if c.Interrupted != "" {
					c.Status = "killed"
				}
				return c, nil
			}
			if c.Interrupted == "" {
				timer.Reset(idle)
			}
			switch m.Type {
			case "stream":
				k.awaitRaw(m.Sync)
				k.mu.Lock()
				c.stream(m.Name, m.Text)
				k.mu.Unlock()
				k.pass(m.Sync)
			case "display", "result":
				k.awaitRaw(m.Sync)
				k.mu.Lock()
				c.bundle(m.Data, m.Type == "result")
				k.mu.Unlock()
				k.pass(m.Sync)
			case "error":
				c.Error = strings.TrimRight(m.Trace, "\n")
				if c.Error == "" {
					c.Error = m.Ename + ": " + m.Evalue
				}
			case "tool_call":
				timer.Stop()
				text, failed := "tool() is not available here", true
				if o.Relay != nil {
					text, failed = o.Relay(ctx, m.Name, m.Args)
				}
				resp, _ := json.Marshal(map[string]any{"type": "tool_result", "id": m.ID, "text": text, "error": failed})
				if _, err := k.toK.Write(append(resp, '\n')); err != nil {
					k.settleRaw(c)
					c.Status = "died"
					return c, nil
				}
				if c.Interrupted == "" {
					timer.Reset(idle)
				}
			case "done":
				k.awaitRaw(m.Sync)
				k.settleRaw(c)
				k.pass(m.Sync)
				c.Status = m.Status
				return c, nil
			}
		case <-timer.C:
			interrupt(fmt.Sprintf("it showed no sign of life for %v", o.Idle))
		case <-done:
			done = nil
			interrupt("the call was cancelled")
		case <-graceC:
			// It did not end after the interrupt: the kernel goes, and its state.
			k.Close()
			k.settleRaw(c)
			c.Status = "killed"
			return c, nil
		}
	}
}

// holdAtMark keeps what the stream gives after a sync mark until the host has reached
// the message the mark comes before, so that a program's output that follows a print
// is not shown before it (bounded: a message that never comes does not stop the
// stream).
func (k *Kernel) holdAtMark(stream int) {
	deadline := time.NewTimer(2 * time.Second)
	defer deadline.Stop()
	for {
		k.mu.Lock()
		reached := k.passed[stream] >= k.marks[stream]
		k.mu.Unlock()
		if reached {
			return
		}
		select {
		case <-k.wantWake[stream]:
		case <-k.ended:
			return
		case <-deadline.C:
			return
		}
	}
}

// awaitRaw waits, when the driver wrote sync marks, until the interpreter's own
// streams have given all they had before the message that follows them — for as long
// as they keep giving: a stream silent for a second without its mark (a cell that
// closed or redirected it) is not waited for.
func (k *Kernel) awaitRaw(marked bool) {
	if !marked {
		return
	}
	k.mu.Lock()
	k.want[0]++
	k.want[1]++
	k.mu.Unlock()
	start := time.Now()
	var tick *time.Ticker
	for {
		k.mu.Lock()
		caught := k.marks[0] >= k.want[0] && k.marks[1] >= k.want[1]
		last := k.rawAt
		if last.Before(start) {
			last = start
		}
		if !caught && time.Since(last) > time.Second {
			// A stream gave up its marks (closed, redirected): count from here on.
			k.want, k.passed = k.marks, k.marks
			caught = true
		}
		k.mu.Unlock()
		if caught {
			return
		}
		if tick == nil {
			tick = time.NewTicker(20 * time.Millisecond)
			defer tick.Stop()
		}
		select {
		case <-k.rawWake:
		case <-tick.C:
		}
	}
}

// pass says the cell has taken in the marked message awaitRaw waited for: what the
// streams gave after its mark may follow now.
func (k *Kernel) pass(marked bool) {
	if !marked {
		return
	}
	k.mu.Lock()
	k.passed = k.want
	k.mu.Unlock()
	k.wakeReaders()
}

func (k *Kernel) wakeReaders() {
	for _, ch := range k.wantWake {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// settleRaw closes the cell's text.
func (k *Kernel) settleRaw(c *Cell) {
	k.mu.Lock()
	c.finish()
	k.mu.Unlock()
}
