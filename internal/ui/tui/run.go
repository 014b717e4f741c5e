package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/ui/tui/history"
)

// Options configure the terminal UI.
type Options struct {
	// App is what the command line said; Resume and Continue pick the first session.
	App app.Options
	// Color is false with NO_COLOR or a terminal without colours.
	Color bool
	// PreviewLines is how many lines of a tool's output show under its line (0: the
	// config's previewLines).
	PreviewLines int
	// In and Out are the terminal (nil: stdin and stdout); Width and Height fix the
	// size for tests (0: the terminal's).
	In            io.Reader
	Out           io.Writer
	Width, Height int
	// Version shows in the first line.
	Version string
}

// frameRate is how many times a second the screen may be redrawn.
const frameRate = 60

// pump carries messages to the program in order without ever blocking the sender:
// the core's events come from the loop's goroutines and also from the program's own
// (an App method called in Update sends its event at once), and Program.Send blocks
// until the program reads, or the program is not running yet.
type pump struct {
	mu      sync.Mutex
	queue   []tea.Msg
	started bool
	wake    chan struct{}
	done    chan struct{}
	exited  chan struct{}
}

func newPump() *pump {
	return &pump{wake: make(chan struct{}, 1), done: make(chan struct{}), exited: make(chan struct{})}
}

// start delivers the queued messages and every later one with send.
func (p *pump) start(send func(tea.Msg)) {
	p.mu.Lock()
	p.started = true
	p.mu.Unlock()
	go p.run(send)
	p.wake <- struct{}{}
}

// push queues msg; it never blocks.
func (p *pump) push(msg tea.Msg) {
	p.mu.Lock()
	p.queue = append(p.queue, msg)
	p.mu.Unlock()
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

func (p *pump) run(send func(tea.Msg)) {
	defer close(p.exited)
	for {
		select {
		case <-p.wake:
		case <-p.done:
			return
		}
		for {
			p.mu.Lock()
			if len(p.queue) == 0 {
				p.mu.Unlock()
				break
			}
			msg := p.queue[0]
			p.queue = p.queue[1:]
			p.mu.Unlock()
			select {
			case <-p.done:
				return
			default:
			}
			send(msg)
		}
	}
}

// stop ends the pump; what is still queued is dropped (the program has ended).
func (p *pump) stop() {
	p.mu.Lock()
	started := p.started
	p.mu.Unlock()
	select {
	case <-p.done:
	default:
		close(p.done)
	}
	if started {
		<-p.exited
	}
}

// New wires a session for the terminal and returns the UI's model. send is how the
// model's messages reach the program (Program.Send): they go through a pump that
// never blocks, and wait in it until send is given (nil: later, with Start).
func New(opts Options, send func(tea.Msg)) (*Model, error) {
	m := &Model{opts: opts, st: newStyles(opts.Color), md: newMarkdown(opts.Color), width: 80, height: 24}
	if opts.Width > 0 {
		m.width, m.height = opts.Width, opts.Height
	}
	m.pump = newPump()
	if send != nil {
		m.pump.start(send)
	}
	m.sendFn = m.pump.push
	m.ask = &asker{send: m.sendFn}
	if send == nil { // the first session opens before the program runs (Run)
		m.ask.early = &lineQuestion{in: opts.In, out: opts.Out}
		if opts.In == nil {
			m.ask.early.in = os.Stdin
		}
		if opts.Out == nil {
			m.ask.early.out = os.Stdout
		}
	}
	m.pool = app.NewPool(func(k string, err error) {
		m.sendFn(eventMsg{face.Notice{Text: fmt.Sprintf("%s stopped: %v", k, err)}})
	})
	err := m.openApp(opts.App, "")
	m.ask.early = nil
	if err != nil {
		m.pump.stop()
		_ = m.pool.Close(context.Background())
		return nil, err
	}
	m.input = textarea.New()
	m.input.Placeholder = "Ask gantry, or /help"
	m.input.ShowLineNumbers = false
	m.input.Prompt = "› "
	m.input.SetPromptFunc(2, firstRowPrompt) // wrapped and further rows start blank
	m.input.DynamicHeight = true
	m.input.MinHeight = 1
	m.input.MaxHeight = 10
	m.input.SetWidth(max(m.width-2, 10))
	m.input.KeyMap.InsertNewline.SetKeys("shift+enter", "alt+enter", "ctrl+j")
	if !opts.Color {
		m.input.SetStyles(textarea.Styles{Cursor: m.input.Styles().Cursor})
	} else {
		st := textarea.DefaultDarkStyles()
		st.Focused.CursorLine = st.Focused.Text // no band behind the line being typed
		m.input.SetStyles(st)
	}
	m.input.SetVirtualCursor(false) // the terminal's own cursor, placed by View
	m.input.Focus()
	m.sized = opts.Width > 0
	if m.sized {
		m.banner()
	}
	if m.hist, err = history.Open(filepath.Join(filepath.Dir(app.StorePath(opts.App)), "history.jsonl")); err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()+"; this session's prompts are kept in memory only"))
		m.hist, _ = history.Open("")
	}
	if m.app.Resumed() {
		m.replay()
	}
	return m, nil
}

// openApp wires a session with opts, starts it and makes it the model's (ending the
// one it replaces for reason, see app.EndSession). Its events arrive as messages, after
// what is printed here.
func (m *Model) openApp(opts app.Options, reason string) error {
	opts.Resources = m.pool
	a, err := app.New(opts)
	if err != nil {
		return err
	}
	if err := a.Start(context.Background(), func(e face.Event) { m.sendFn(eventMsg{e}) }, m.ask); err != nil {
		_ = a.Close()
		return err
	}
	if m.app != nil {
		for _, w := range m.app.EndSession(reason) {
			m.print(m.st.r(m.st.warn, "⚠ "+w))
		}
		if err := m.app.Close(); err != nil {
			m.print(m.st.r(m.st.warn, "⚠ the last session did not close cleanly: "+err.Error()))
		}
	}
	m.app = a
	m.model, m.mode = a.Model(), a.Mode()
	if m.opts.PreviewLines == 0 {
		m.opts.PreviewLines = a.PreviewLines()
	}
	return nil
}

// switchSession replaces the session: a new one (""), the latest of this folder
// ("@cwd") or a stored one by id. The model the person chose stays.
func (m *Model) switchSession(id string) error {
	opts := m.opts.App
	opts.Cwd = m.app.Cwd()
	opts.Model = m.model
	opts.Continue, opts.Resume = false, ""
	switch id {
	case "":
	case "@cwd":
		opts.Continue = true
	default:
		opts.Resume = id
	}
	prev := m.app.SessionID()
	reason := app.EndResume
	if id == "" {
		reason = app.EndClear
	}
	if err := m.openApp(opts, reason); err != nil {
		return err
	}
	m.prevSession = prev
	m.usage, m.meter = face.TurnUsage{}, contextMeter{}
	m.todos = nil
	return nil
}

// Close ends the session: background tasks are stopped, the store closed, the
// resources of every session closed. What failed is returned.
func (m *Model) Close() error {
	if m.cancel != nil {
		m.cancel()
	}
	if m.ended != nil { // let the loop record its last events before the store closes
		select {
		case <-m.ended:
		case <-time.After(5 * time.Second):
		}
	}
	var errs []error
	if m.app != nil {
		// The screen is gone by now: what the SessionEnd hooks say goes to stderr.
		for _, w := range m.app.EndSession(app.EndPromptInputExit) {
			fmt.Fprintln(os.Stderr, "gantry: "+w)
		}
		errs = append(errs, m.app.Close())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	errs = append(errs, m.pool.Close(ctx))
	m.pump.stop()
	return errors.Join(errs...)
}

// Run runs the terminal UI until the person quits, or ctx ends. The error is a
// session that could not start or a terminal that failed.
func Run(ctx context.Context, opts Options) (err error) {
	m, err := New(opts, nil)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := m.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}()
	// bubbletea v2 compares the view on every frame of a ticker that never stops,
	// even when nothing changed, and draws the first frame on a tick: at 60 frames
	// a second the first frame is on screen in 34 ms and the idle UI costs 1.6% of a
	// core; at 30, 51 ms and 0.8% (docs/benchmarks.md).
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(frameRate)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	switch {
	case opts.Out != nil:
		popts = append(popts, tea.WithOutput(opts.Out))
	default:
		if m.guard = newReflowGuard(os.Stdout); m.guard != nil {
			popts = append(popts, tea.WithOutput(m.guard))
		}
	}
	if opts.Width > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	tp := tea.NewProgram(m, popts...)
	m.pump.start(tp.Send)
	if _, err := tp.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		return err
	}
	// The screen is gone: say how to come back to this session.
	if m.app != nil && m.app.HistoryLen() > 0 {
		out := io.Writer(os.Stdout)
		if opts.Out != nil {
			out = opts.Out
		}
		fmt.Fprintf(out, "Resume this session with: gantry -r %s\n", m.app.SessionID())
	}
	return nil
}
