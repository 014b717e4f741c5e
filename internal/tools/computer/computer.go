// Package computer is the computer tool: it looks at the desktop (a screenshot with a
// numbered box on every interactive element, the accessibility tree) and acts on it
// (clicks, drags, scrolls, typing, keys), on the display the session can reach. The
// display's connection is a live resource of the session: opened by the first call,
// kept, closed with the session.
package computer

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The model's image limit: the long side and the area a screenshot is scaled within.
const (
	maxSide   = 1568
	maxPixels = 1_150_000
	// afterSide bounds the small screenshot of screenshot_after.
	afterSide = 768
)

// Options configure the tool.
type Options struct {
	// Open connects to the display; nil: desktop.Open of $DISPLAY.
	Open func() (desktop.Backend, error)
	// MaxOutput bounds the element lists.
	MaxOutput int
}

// Desktop is the session's display: a tool.Toolset holding the connection.
type Desktop struct {
	opts Options

	mu      sync.Mutex
	b       desktop.Backend
	gone    error             // the display went away: said by every call until it answers again
	checked time.Time         // when Usable last tried to connect
	usable  bool              // what that try found
	marks   []desktop.Element // the numbered elements of the latest screenshot, in screen pixels
	scale   float64           // the latest screenshot's scale (screen → image)
}

// New makes the session's Desktop.
func New(o Options) *Desktop {
	if o.Open == nil {
		o.Open = func() (desktop.Backend, error) { return desktop.Open("") }
	}
	return &Desktop{opts: o, scale: 1}
}

// Tools is the computer tool.
func (d *Desktop) Tools() []tool.Tool { return []tool.Tool{d.tool()} }

// Close closes the display's connection.
func (d *Desktop) Close(context.Context) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.b != nil {
		err := d.b.Close()
		d.b = nil
		return err
	}
	return nil
}

// Usable reports whether a display is reachable: the tool is declared while it is. A
// failed connection is tried again after a few seconds, not on every request.
func (d *Desktop) Usable() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.b != nil && d.gone == nil {
		return true
	}
	if time.Since(d.checked) < 5*time.Second {
		return d.usable
	}
	d.checked = time.Now()
	_, err := d.backend()
	d.usable = err == nil
	return d.usable
}

// backend is the open display, opened when it is not; d.mu is held.
func (d *Desktop) backend() (desktop.Backend, error) {
	if d.b != nil && d.gone == nil {
		return d.b, nil
	}
	if d.b != nil {
		_ = d.b.Close()
		d.b = nil
	}
	b, err := d.opts.Open()
	if err != nil {
		return nil, err
	}
	d.b, d.gone, d.marks = b, nil, nil
	return b, nil
}

// lost marks the display gone after an error that says it stopped answering.
func (d *Desktop) lost(err error) {
	if err != nil && strings.Contains(err.Error(), "stopped answering") {
		d.gone = err
		d.usable = false
		d.checked = time.Now()
	}
}

//go:embed computer.md
var description string

func (d *Desktop) tool() tool.Tool {
	return tool.New(tool.Def[args]{
		Name: "computer", Label: "Use the desktop", Description: description,
		Family: "desktop",
		Level:  tool.LevelExec, Kind: tool.KindOther, Icon: "🖥️",
		// computer:screenshot can be allowed alone; an input action is its action and
		// what it types or presses (see the operations' Principal).
		Principal: func(a args) string { return a.Action },
		Title:     func(_ tool.Env, a args, _ []string) string { return a.Action },
		// Durations were in milliseconds; they are in seconds like every tool's.
		Formers: []tool.Former{
			{Name: "duration_ms", New: "duration", Scale: 0.001, Unit: "seconds"},
			{Name: "delay_ms", New: "delay", Scale: 0.001, Unit: "seconds"},
		},
		Ops: d.ops(),
	})
}

// backendOp is an action on the open display.
type backendOp func(ctx context.Context, b desktop.Backend, a args) tool.Result

// on runs act on the display, opened first when it is not: one action at a time, and
// a display that went away said as such.
func (d *Desktop) on(act backendOp) func(ctx context.Context, env tool.Env, a args) tool.Result {
	return func(ctx context.Context, _ tool.Env, a args) tool.Result {
		d.mu.Lock()
		defer d.mu.Unlock()
		b, err := d.backend()
		if err != nil {
			if errors.Is(err, desktop.ErrNoDisplay) {
				return tool.Fail(fmt.Sprintf("No display is reachable: %v.", err))
			}
			return tool.Fail(fmt.Sprintf("The display could not be opened: %v.", err))
		}
		r := act(ctx, b, a)
		if r.IsError && d.gone != nil {
			r.Text = fmt.Sprintf("The display %s went away: %v.", b.Name(), d.gone)
		}
		return r
	}
}
