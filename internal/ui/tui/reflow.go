package tui

import (
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/term"
)

// reflowGuard stands between the program and the terminal, against ghosts of the
// live area after a resize.
//
// A terminal made narrower reflows its lines (tmux, VTE, kitty, iTerm2, Alacritty,
// WezTerm and Windows Terminal do; xterm does not): a line of the live area longer
// than the new width becomes two or more rows, and the rows gained above the cursor
// push the cursor down. The renderer moves relative to where it believes the cursor
// is, so its erase of the old live area would start that many rows too low and leave
// the top of the old area on the screen: a ghost copy of the input. Before the first
// write after the terminal got narrower, the guard moves the cursor up by the rows
// the reflow added above it, so that the erase starts where the area really starts.
type reflowGuard struct {
	f *os.File

	mu sync.Mutex
	// drawn is the live area as the terminal has it, next as View made it last (it
	// becomes drawn with the next write).
	drawn, next frameShape
}

// frameShape is what reflow does to a live area: the display width of each line,
// where the cursor is, and the width the area was laid out for.
type frameShape struct {
	widths    []int
	row, col  int // the cursor, within the area
	width     int
	hasCursor bool
}

// newReflowGuard guards f, or returns nil when it should not: f is no terminal, or the
// terminal is xterm, which does not reflow.
func newReflowGuard(f *os.File) *reflowGuard {
	if !term.IsTerminal(f.Fd()) || os.Getenv("XTERM_VERSION") != "" {
		return nil
	}
	return &reflowGuard{f: f}
}

// Read, Close and Fd make the guard the program's terminal (term.File).
func (g *reflowGuard) Read(p []byte) (int, error) { return g.f.Read(p) }
func (g *reflowGuard) Close() error               { return g.f.Close() }
func (g *reflowGuard) Fd() uintptr                { return g.f.Fd() }

// Write implements io.Writer.
func (g *reflowGuard) Write(p []byte) (int, error) {
	g.mu.Lock()
	if w, _, err := term.GetSize(g.f.Fd()); err == nil && w > 0 && g.drawn.width > 0 && w < g.drawn.width {
		if n := g.drawn.reflowed(w); n > 0 {
			fmt.Fprintf(g.f, "\x1b[%dA", n)
		}
		// Compensated once: a frame laid out before the program heard of the new
		// size is not compensated again.
		g.drawn.width, g.next.width = w, min(g.next.width, w)
	}
	if g.next.width > 0 {
		g.drawn = g.next
	}
	g.mu.Unlock()
	return g.f.Write(p)
}

// laidOut records the live area View made, for width columns, with the cursor at
// (row, col) of it (hasCursor false: the renderer parks it at the start of the last
// line).
func (g *reflowGuard) laidOut(content string, width int, hasCursor bool, row, col int) {
	if g == nil {
		return
	}
	lines := strings.Split(content, "\n")
	s := frameShape{widths: make([]int, len(lines)), width: width, row: row, col: col, hasCursor: hasCursor}
	for i, l := range lines {
		s.widths[i] = ansi.StringWidth(strings.TrimRight(ansi.Strip(l), " "))
	}
	if !hasCursor {
		s.row, s.col = len(lines)-1, 0
	}
	g.mu.Lock()
	g.next = s
	g.mu.Unlock()
}

// reflowed is how many rows a reflow to width adds above the cursor of the area.
func (s frameShape) reflowed(width int) int {
	n := 0
	for i := 0; i < s.row && i < len(s.widths); i++ {
		if w := s.widths[i]; w > width {
			n += (w+width-1)/width - 1
		}
	}
	if s.col >= width {
		n += s.col / width // the cursor's own line wrapped before it
	}
	return n
}
