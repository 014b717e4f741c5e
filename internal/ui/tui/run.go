package tui

import (
	"context"
	"errors"
	"io"
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

// program is the running tea program, for the core's goroutines to send to.
type program struct{ p *tea.Program }

func (p *program) send(msg tea.Msg) {
	if p.p != nil {
		p.p.Send(msg)
	}
}

// New wires a session for the terminal and returns the UI's model; send is how the
// core's goroutines reach the program (Program.Send).
func New(opts Options, send func(tea.Msg)) (*Model, error) {
	m := &Model{opts: opts, st: newStyles(opts.Color), md: newMarkdown(opts.Color), width: 80, height: 24}
	if opts.Width > 0 {
		m.width, m.height = opts.Width, opts.Height
	}
	m.sendFn = send
	m.ask = &asker{send: send, app: func() *app.App { return m.app }}
	if err := m.openApp(opts.App); err != nil {
		return nil, err
	}
	m.input = textarea.New()
	m.input.Placeholder = "Ask gantry, or /help"
	m.input.ShowLineNumbers = false
	m.input.Prompt = "› "
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
	m.banner()
	var err error
	if m.hist, err = history.Open(filepath.Join(filepath.Dir(app.StorePath(opts.App)), "history.jsonl")); err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()+"; this session's prompts are kept in memory only"))
		m.hist, _ = history.Open("")
	}
	if m.app.Resumed {
		m.replay()
	}
	return m, nil
}

// openApp wires a session with opts and makes it the model's. It runs on the
// program's goroutine (or before the program), so the events app.New raises (hook
// notices, an MCP server that failed, a resumed todo list) cannot go through the
// program's channel: they are kept and applied once it returns.
func (m *Model) openApp(opts app.Options) error {
	var (
		mu    sync.Mutex
		early []face.Event
		ready bool
	)
	sink := func(e face.Event) {
		mu.Lock()
		if !ready {
			early = append(early, e)
			mu.Unlock()
			return
		}
		mu.Unlock()
		m.sendFn(eventMsg{e})
	}
	a, err := app.New(opts, sink, m.ask)
	mu.Lock()
	ready = true
	mu.Unlock()
	if err != nil {
		return err
	}
	defer func() {
		for _, e := range early {
			m.event(e)
		}
	}()
	if m.app != nil {
		m.app.Close()
	}
	m.app = a
	if m.opts.PreviewLines == 0 {
		m.opts.PreviewLines = a.Config.PreviewLines
	}
	return nil
}

// switchSession replaces the session: a new one (""), the latest of this folder
// ("@cwd") or a stored one by id.
func (m *Model) switchSession(id string) error {
	opts := m.opts.App
	opts.Cwd = m.app.Agent.Env.Cwd
	opts.Continue, opts.Resume = false, ""
	switch id {
	case "":
	case "@cwd":
		opts.Continue = true
	default:
		opts.Resume = id
	}
	m.usage = face.TurnUsage{}
	m.todos = nil
	return m.openApp(opts)
}

// Close ends the session: background tasks are stopped and the store closed.
func (m *Model) Close() {
	if m.cancel != nil {
		m.cancel()
	}
	if m.ended != nil { // let the loop record its last events before the store closes
		select {
		case <-m.ended:
		case <-time.After(5 * time.Second):
		}
	}
	if m.app != nil {
		m.app.Close()
	}
}

// Run runs the terminal UI until the person quits, or ctx ends. The error is a
// session that could not start or a terminal that failed.
func Run(ctx context.Context, opts Options) error {
	var prog program
	m, err := New(opts, prog.send)
	if err != nil {
		return err
	}
	defer m.Close()
	// bubbletea v2 compares the view on every frame of a ticker that never stops,
	// even when nothing changed, and draws the first frame on a tick: at 60 frames
	// a second the first frame is on screen in 34 ms and the idle UI costs 1.6% of a
	// core; at 30, 51 ms and 0.8% (docs/benchmarks.md).
	popts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(frameRate)}
	if opts.In != nil {
		popts = append(popts, tea.WithInput(opts.In))
	}
	if opts.Out != nil {
		popts = append(popts, tea.WithOutput(opts.Out))
	}
	if opts.Width > 0 {
		popts = append(popts, tea.WithWindowSize(opts.Width, opts.Height))
	}
	prog.p = tea.NewProgram(m, popts...)
	if _, err := prog.p.Run(); err != nil && !errors.Is(err, tea.ErrProgramKilled) && ctx.Err() == nil {
		return err
	}
	return nil
}
