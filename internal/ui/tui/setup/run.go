package setup

import (
	"errors"
	"io"
	"os"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"
)

// ErrInputEnded is Run's error when its input ends before the setup does.
var ErrInputEnded = errors.New("the input ended before the setup was done: nothing was written")

// Run runs the setup as a program of its own on in and out (a terminal, which it puts
// in raw mode, or any reader and writer) until it ends, and says how it ended. When
// in ends first, the setup is aborted and the error is ErrInputEnded; when the
// program fails, its error is returned with Aborted set unless the setup had ended.
func Run(in io.Reader, out io.Writer, opts Options) (Result, error) {
	width := opts.Width
	if width <= 0 {
		width = maxWidth
	}
	end := &endReader{r: in}
	var input io.Reader = end
	if f, ok := in.(*os.File); ok {
		input = endFile{f, end} // still a file: a terminal is seen as one
	}
	p := tea.NewProgram(runner{New(opts)},
		tea.WithInput(input),
		tea.WithOutput(out),
		// The size when out is not a terminal; a terminal reports its own.
		tea.WithWindowSize(width, 24),
	)
	final, err := p.Run()
	r := Result{Aborted: true}
	if f, ok := final.(runner); ok && f.m.Done() {
		r = f.m.Result()
	}
	if err == nil && r.Aborted && end.ended.Load() {
		err = ErrInputEnded
	}
	return r, err
}

// runner is the Model as a program of its own: it quits when the setup is done.
type runner struct{ m Model }

func (r runner) Init() tea.Cmd { return r.m.Init() }

func (r runner) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(DoneMsg); ok {
		return r, tea.Quit
	}
	var cmd tea.Cmd
	r.m, cmd = r.m.Update(msg)
	return r, cmd
}

func (r runner) View() tea.View { return r.m.View() }

// endReader passes reads through, but at the end of its input gives one Ctrl-D
// (which aborts the setup) before io.EOF. bubbletea takes the end of its input as
// nothing more to read and would wait for ever; the Ctrl-D, in the input stream,
// comes after every key read before it.
type endReader struct {
	r     io.Reader
	ended atomic.Bool
}

func (e *endReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if errors.Is(err, io.EOF) {
		if n > 0 {
			return n, nil // the end again at the next read
		}
		if len(p) > 0 && !e.ended.Swap(true) {
			p[0] = ctrlD
			return 1, nil
		}
	}
	return n, err
}

// ctrlD is the byte of Ctrl-D, the end of input on a terminal.
const ctrlD = 0x04

// endFile is an endReader on a file that is still the file otherwise (Fd, Write,
// Close), so that bubbletea puts a terminal in raw mode and can cancel its reads.
type endFile struct {
	*os.File
	end *endReader
}

func (f endFile) Read(p []byte) (int, error) { return f.end.Read(p) }
