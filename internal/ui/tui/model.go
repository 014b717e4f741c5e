package tui

import (
	"context"
	"strings"
	"time"

	"charm.land/bubbles/v2/textarea"
	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/ui/tui/history"
)

// Model is the terminal UI's state. Everything is changed in Update, on the
// program's goroutine.
type Model struct {
	opts  Options
	st    styles
	md    *markdown
	app   *app.App
	width int
	// height is the terminal's; the live area uses what it needs of it.
	height int

	input textarea.Model
	hist  *history.History
	comp  completion

	// out are finished lines waiting to be printed into the scrollback (one print
	// in flight at a time keeps them in order); transcript is all that was printed.
	out        []string
	printing   bool
	transcript []string

	// The running turn.
	running   bool
	cancel    context.CancelFunc
	ended     chan struct{} // closed when the running turn's loop returned
	turnStart time.Time
	// paused is how long questions were on screen (pauseStart: since when one is);
	// turnPaused was pausedNow() when the turn began.
	paused, turnPaused time.Duration
	pauseStart         time.Time
	stream             string // the model's text not yet printed
	inText             bool   // a part of the model's current text was printed
	liveCache          struct {
		text  string
		width int
		out   string
	}
	thinking  strings.Builder
	lastThink string
	tools     []liveTool
	drafts    []liveDraft // calls the model is still writing
	todos     []face.TodoItem
	queued    []string // prompts typed while a turn ran
	attached  []llm.Image
	usage     face.TurnUsage
	dialogs   []dialog // the first is shown
	// dialogHidden is how many rows of the shown dialog's body its last drawing left
	// out for the pane's height; dialogScroll how far pgup scrolled it (0: its end,
	// where the choices are).
	dialogHidden, dialogScroll int
	hint                       string // a one-line message under the input
	hintUntil                  time.Time
	quitArmed                  time.Time
	stopArmed                  time.Time            // esc between turns, with workers running: a second esc stops them
	rewindArmed                time.Time            // esc on an empty input: a second esc opens /rewind
	byModel                    map[string]*modelUse // the session's usage by model, for /cost
	quitting                   bool
	// model and mode are the session's, as its events last said.
	model string
	mode  permission.Mode
	// prevSession is the session /clear or /resume left, for a /resume with no id.
	prevSession string

	// sized says the terminal's width is known (the first line waits for it).
	sized bool

	sendFn func(tea.Msg)
	pump   *pump
	pool   *app.Pool    // the live resources of every session of this UI
	guard  *reflowGuard // nil unless the output is a terminal that reflows
	ask    *asker
	noTick bool

	meter contextMeter // how full the context window is, for the status line
}

// liveTool is a call that started and has not finished.
type liveTool struct {
	id, line string
	note     string        // said of the call (a hook rewrote its input)
	started  time.Time     // when it was announced
	pausedAt time.Duration // pausedNow() then
	sub      bool
	tail     []string // the last lines it printed, while it runs
}

// printedMsg says the last print reached the scrollback.
type printedMsg struct{}

// eventMsg carries a core event into the program.
type eventMsg struct{ e face.Event }

// turnDoneMsg ends a turn.
type turnDoneMsg struct{ end face.TurnEnded }

// tickMsg redraws the elapsed times of running tools once a second, only while a
// turn runs (the UI does not redraw when idle).
type tickMsg struct{}

// print queues lines for the scrollback.
func (m *Model) print(lines ...string) {
	for _, l := range lines {
		m.out = append(m.out, strings.Split(l, "\n")...)
	}
}

// flush prints the queued lines, in order: one print at a time, and none before the
// first line (which waits for the terminal's width).
func (m *Model) flush() tea.Cmd {
	if m.printing || len(m.out) == 0 || !m.sized {
		return nil
	}
	text := strings.Join(m.out, "\n")
	m.transcript = append(m.transcript, m.out...)
	m.out = nil
	m.printing = true
	return tea.Sequence(tea.Println(text), func() tea.Msg { return printedMsg{} })
}

// Init implements tea.Model.
func (m *Model) Init() tea.Cmd {
	return tea.Batch(m.input.Focus(), m.flush())
}

// showBanner prints the first line, once the terminal's width is known (it is cut to
// fit), before anything else printed.
func (m *Model) showBanner() {
	if m.sized {
		return
	}
	m.sized = true
	rest := m.out
	m.out = nil
	m.banner()
	m.out = append(m.out, rest...)
}

// Update implements tea.Model.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	var cmds []tea.Cmd
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.input.SetWidth(max(msg.Width-2, 10))
		m.showBanner()
	case printedMsg:
		m.printing = false
	case eventMsg:
		m.event(msg.e)
	case turnDoneMsg:
		cmds = append(cmds, m.turnDone(msg.end))
	case compactedMsg:
		m.compacted(msg)
	case askMsg:
		m.dialogs = append(m.dialogs, msg.d)
		m.dialogsChanged()
	case closeDialogMsg:
		m.dropDialog(msg.d)
		m.dialogsChanged()
	case tickMsg:
		if m.running {
			cmds = append(cmds, m.tick())
		}
	case filesMsg:
		m.comp.files(msg)
	case tea.PasteMsg:
		m.paste(msg.Content)
	case tea.KeyPressMsg:
		m.showBanner() // an output that is no terminal never says its size
		cmds = append(cmds, m.key(msg))
	default:
		var cmd tea.Cmd
		m.input, cmd = m.input.Update(msg)
		cmds = append(cmds, cmd)
	}
	if m.quitting {
		m.printing = false // the last lines go out before the program ends
		return m, tea.Sequence(m.flush(), tea.Quit)
	}
	cmds = append(cmds, m.flush())
	return m, tea.Batch(cmds...)
}

// tick redraws once a second while a turn runs (never when idle; tests turn it off).
func (m *Model) tick() tea.Cmd {
	if m.noTick {
		return nil
	}
	return tea.Tick(time.Second, func(time.Time) tea.Msg { return tickMsg{} })
}

// say shows a short message under the input for a few seconds.
func (m *Model) say(s string) {
	m.hint, m.hintUntil = s, time.Now().Add(4*time.Second)
}
