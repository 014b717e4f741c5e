// Package computer is the computer tool: it looks at the desktop (a screenshot with a
// numbered box on every interactive element, the accessibility tree) and acts on it
// (clicks, drags, scrolls, typing, keys), on the display the session can reach. The
// display's connection is a live resource of the session: opened by the first call,
// kept, closed with the session.
package computer

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"image"
	"image/png"
	"math"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/llm"
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

type args struct {
	Action          string   `json:"action" jsonschema:"enum=screenshot,enum=click,enum=double_click,enum=right_click,enum=drag,enum=scroll,enum=type,enum=key,enum=keys,enum=find_element,enum=ax_tree" jsonschema_description:"What to do."`
	X               *int     `json:"x,omitempty" jsonschema_description:"click, scroll: the point, in the latest screenshot's pixels."`
	Y               *int     `json:"y,omitempty" jsonschema_description:"click, scroll: the point, in the latest screenshot's pixels."`
	Element         *int     `json:"element,omitempty" jsonschema_description:"click, scroll: the number of a box of the latest screenshot (or find_element), instead of x and y."`
	StartX          *int     `json:"start_x,omitempty" jsonschema_description:"drag: where it starts."`
	StartY          *int     `json:"start_y,omitempty"`
	EndX            *int     `json:"end_x,omitempty" jsonschema_description:"drag: where it ends."`
	EndY            *int     `json:"end_y,omitempty"`
	StartElement    *int     `json:"start_element,omitempty" jsonschema_description:"drag: the box it starts on, instead of start_x and start_y."`
	EndElement      *int     `json:"end_element,omitempty" jsonschema_description:"drag: the box it ends on, instead of end_x and end_y."`
	Duration        float64  `json:"duration,omitempty" jsonschema:"minimum=0,maximum=10" jsonschema_description:"drag: how long the move takes, in seconds (default 0.3)."`
	DX              int      `json:"dx,omitempty" jsonschema_description:"scroll: notches right (negative: left)."`
	DY              int      `json:"dy,omitempty" jsonschema_description:"scroll: notches down (negative: up)."`
	Text            string   `json:"text,omitempty" jsonschema_description:"type: the text to type where the focus is."`
	Delay           float64  `json:"delay,omitempty" jsonschema:"minimum=0,maximum=1" jsonschema_description:"type: the pause between characters, in seconds (default 0)."`
	Key             string   `json:"key,omitempty" jsonschema_description:"key: one key or combination: enter, tab, escape, backspace, delete, arrows, home, end, page_up, page_down, f1–f12, a character; with modifiers ctrl+, shift+, alt+, super+ (ctrl+a, shift+tab)."`
	Keys            []string `json:"keys,omitempty" jsonschema_description:"keys: combinations pressed one after the other (['ctrl+a', 'delete'])."`
	Query           string   `json:"query,omitempty" jsonschema_description:"find_element: words to find in the elements' names, roles and descriptions."`
	App             string   `json:"app,omitempty" jsonschema_description:"screenshot, find_element, ax_tree: only this application's elements (part of its name)."`
	Depth           int      `json:"depth,omitempty" jsonschema_description:"ax_tree: how deep to go (default: all)."`
	Role            string   `json:"role,omitempty" jsonschema_description:"ax_tree: only elements of this role (push button, text, check box, …)."`
	Clickable       bool     `json:"clickable,omitempty" jsonschema_description:"ax_tree: only the elements one can click or focus."`
	SOM             *bool    `json:"som,omitempty" jsonschema_description:"screenshot: draw the numbered boxes (default true)."`
	ScreenshotAfter bool     `json:"screenshot_after,omitempty" jsonschema_description:"click, drag, scroll, type, key, keys: return a small screenshot of the result (default false, to save tokens)."`
}

var inputActions = map[string]bool{"click": true, "double_click": true, "right_click": true, "drag": true, "scroll": true, "type": true, "key": true, "keys": true}

func (d *Desktop) tool() tool.Tool {
	return tool.New(tool.Def[args]{
		Name: "computer", Label: "Use the desktop", Description: description,
		Family: "desktop",
		Level:  tool.LevelExec, Kind: tool.KindOther, Icon: "🖥️",
		// computer:screenshot can be allowed alone; an input action is its action and
		// what it types or presses.
		Principal: func(a args) string {
			switch a.Action {
			case "type":
				return "type " + a.Text
			case "key":
				return "key " + a.Key
			case "keys":
				return "keys " + strings.Join(a.Keys, " ")
			}
			return a.Action
		},
		Title: func(_ tool.Env, a args, _ []string) string { return title(a) },
		Check: check,
		// Durations were in milliseconds; they are in seconds like every tool's.
		Formers: []tool.Former{
			{Name: "duration_ms", New: "duration", Scale: 0.001, Unit: "seconds"},
			{Name: "delay_ms", New: "delay", Scale: 0.001, Unit: "seconds"},
		},
		Run: d.run,
	})
}

// seconds is a duration given in seconds, to the millisecond.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1000)) * time.Millisecond
}

func title(a args) string {
	switch a.Action {
	case "screenshot":
		return "Take a screenshot"
	case "click", "double_click", "right_click":
		return strings.ReplaceAll(a.Action, "_", " ") + " " + where(a.Element, a.X, a.Y)
	case "drag":
		return "drag from " + where(a.StartElement, a.StartX, a.StartY) + " to " + where(a.EndElement, a.EndX, a.EndY)
	case "scroll":
		return fmt.Sprintf("scroll %d,%d at %s", a.DX, a.DY, where(a.Element, a.X, a.Y))
	case "type":
		return fmt.Sprintf("type %q", oneLine(a.Text, 60))
	case "key":
		return "press " + a.Key
	case "keys":
		return "press " + strings.Join(a.Keys, ", ")
	case "find_element":
		return fmt.Sprintf("find %q", a.Query)
	case "ax_tree":
		return "read the accessibility tree"
	}
	return a.Action
}

func where(el, x, y *int) string {
	switch {
	case el != nil:
		return fmt.Sprintf("element [%d]", *el)
	case x != nil && y != nil:
		return fmt.Sprintf("%d,%d", *x, *y)
	}
	return "the pointer"
}

func check(a args) string {
	point := func(what string, el, x, y *int) string {
		if el == nil && (x == nil || y == nil) {
			return fmt.Sprintf("computer %s needs %s: element (a box's number) or x and y.", a.Action, what)
		}
		if el != nil && *el < 1 {
			return fmt.Sprintf("computer %s: element is a box's number, 1 or more, not %d.", a.Action, *el)
		}
		return ""
	}
	switch a.Action {
	case "click", "double_click", "right_click":
		return point("a point", a.Element, a.X, a.Y)
	case "drag":
		if m := point("a start", a.StartElement, a.StartX, a.StartY); m != "" {
			return m
		}
		return point("an end", a.EndElement, a.EndX, a.EndY)
	case "scroll":
		if a.DX == 0 && a.DY == 0 {
			return "computer scroll needs dx or dy: notches to scroll (dy > 0 is down)."
		}
		if a.Element == nil && (a.X == nil) != (a.Y == nil) {
			return "computer scroll needs both x and y, or element, or neither (the pointer's place)."
		}
	case "type":
		if a.Text == "" {
			return "computer type needs text."
		}
	case "key":
		if _, _, err := desktop.SplitCombo(a.Key); err != nil || a.Key == "" {
			return fmt.Sprintf("computer key: %q is not a key: %v.", a.Key, errOr(err, "it is empty"))
		}
	case "keys":
		if len(a.Keys) == 0 {
			return "computer keys needs keys: a list of combinations."
		}
		for _, k := range a.Keys {
			if _, _, err := desktop.SplitCombo(k); err != nil {
				return fmt.Sprintf("computer keys: %q is not a key: %v.", k, err)
			}
		}
	case "find_element":
		if strings.TrimSpace(a.Query) == "" {
			return "computer find_element needs a query."
		}
	}
	return ""
}

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func (d *Desktop) run(ctx context.Context, _ tool.Env, a args) tool.Result {
	d.mu.Lock()
	defer d.mu.Unlock()
	b, err := d.backend()
	if err != nil {
		if errors.Is(err, desktop.ErrNoDisplay) {
			return tool.Fail(fmt.Sprintf("No display is reachable: %v.", err))
		}
		return tool.Fail(fmt.Sprintf("The display could not be opened: %v.", err))
	}
	r := d.act(ctx, b, a)
	if r.IsError && d.gone != nil {
		r.Text = fmt.Sprintf("The display %s went away: %v.", b.Name(), d.gone)
	}
	return r
}

func (d *Desktop) act(ctx context.Context, b desktop.Backend, a args) tool.Result {
	fail := func(err error) tool.Result {
		d.lost(err)
		return tool.Fail(fmt.Sprintf("computer %s failed: %v.", a.Action, err))
	}
	switch a.Action {
	case "screenshot":
		return d.screenshot(ctx, b, a.App, a.SOM == nil || *a.SOM)
	case "find_element":
		return d.find(ctx, b, a)
	case "ax_tree":
		return d.tree(ctx, b, a)
	}
	var did string
	switch a.Action {
	case "click", "double_click", "right_click":
		x, y, what, err := d.point(a.Element, a.X, a.Y)
		if err != nil {
			return tool.Fail(err.Error())
		}
		btn, n := desktop.Left, 1
		switch a.Action {
		case "double_click":
			n = 2
		case "right_click":
			btn = desktop.Right
		}
		if err := b.Click(ctx, x, y, btn, n); err != nil {
			return fail(err)
		}
		did = fmt.Sprintf("%s at %s.", strings.ReplaceAll(capital(a.Action), "_", " ")+"ed", what)
	case "drag":
		x0, y0, from, err := d.point(a.StartElement, a.StartX, a.StartY)
		if err != nil {
			return tool.Fail(err.Error())
		}
		x1, y1, to, err := d.point(a.EndElement, a.EndX, a.EndY)
		if err != nil {
			return tool.Fail(err.Error())
		}
		dur := seconds(a.Duration)
		if dur == 0 {
			dur = 300 * time.Millisecond
		}
		if err := b.Drag(ctx, x0, y0, x1, y1, dur); err != nil {
			return fail(err)
		}
		did = fmt.Sprintf("Dragged from %s to %s.", from, to)
	case "scroll":
		x, y, what := -1, -1, "the pointer"
		if a.Element != nil || a.X != nil {
			var err error
			if x, y, what, err = d.point(a.Element, a.X, a.Y); err != nil {
				return tool.Fail(err.Error())
			}
		} else {
			w, h := b.Size()
			x, y = w/2, h/2
			what = "the middle of the screen"
		}
		if err := b.Scroll(ctx, x, y, a.DX, a.DY); err != nil {
			return fail(err)
		}
		did = fmt.Sprintf("Scrolled %d notch(es) down, %d right at %s.", a.DY, a.DX, what)
	case "type":
		if err := b.Type(ctx, a.Text, seconds(a.Delay)); err != nil {
			return fail(err)
		}
		did = fmt.Sprintf("Typed %d character(s).", len([]rune(a.Text)))
	case "key":
		if err := b.Key(ctx, a.Key); err != nil {
			return fail(err)
		}
		did = "Pressed " + a.Key + "."
	case "keys":
		for _, k := range a.Keys {
			if err := b.Key(ctx, k); err != nil {
				return fail(err)
			}
			time.Sleep(30 * time.Millisecond)
		}
		did = "Pressed " + strings.Join(a.Keys, ", then ") + "."
	default:
		return tool.Fail(fmt.Sprintf("computer has no action %q.", a.Action))
	}
	r := tool.Result{Text: did}
	if a.ScreenshotAfter && inputActions[a.Action] {
		time.Sleep(150 * time.Millisecond) // the application draws what the input did
		img, err := b.Screenshot(ctx)
		if err != nil {
			return fail(err)
		}
		s := desktop.Fit(img.Bounds().Dx(), img.Bounds().Dy(), afterSide, afterSide*afterSide)
		small := desktop.Scale(img, s)
		data, err := encode(small)
		if err != nil {
			return fail(err)
		}
		r.Images = []llm.Image{{MediaType: "image/png", Data: data}}
		r.Text += fmt.Sprintf(" A small screenshot of the result follows (%dx%d; its coordinates are not the latest screenshot's).", small.Bounds().Dx(), small.Bounds().Dy())
		r.Display.Note = fmt.Sprintf("[screenshot %dx%d]", small.Bounds().Dx(), small.Bounds().Dy())
	}
	return r
}

func capital(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}

// point maps the model's point (a box's number, or x,y in the latest screenshot's
// pixels) to screen pixels, with a description of it.
func (d *Desktop) point(el, x, y *int) (int, int, string, error) {
	if el != nil {
		n := *el
		if len(d.marks) == 0 {
			return 0, 0, "", errors.New("there are no numbered boxes yet: take a screenshot (or find_element) first, or give x and y")
		}
		if n < 1 || n > len(d.marks) {
			return 0, 0, "", fmt.Errorf("the latest screenshot has boxes 1 to %d, not %d", len(d.marks), n)
		}
		e := d.marks[n-1]
		cx, cy := e.Center()
		return cx, cy, fmt.Sprintf("element [%d] %s", n, describe(e)), nil
	}
	sx, sy := int(float64(*x)/d.scale+0.5), int(float64(*y)/d.scale+0.5)
	if d.scale == 1 {
		return sx, sy, fmt.Sprintf("%d,%d", *x, *y), nil
	}
	return sx, sy, fmt.Sprintf("%d,%d (screen %d,%d)", *x, *y, sx, sy), nil
}

func describe(e desktop.Element) string {
	if e.Name == "" {
		return e.Role
	}
	return fmt.Sprintf("%s %q", e.Role, e.Name)
}

// screenshot captures the screen, scales it within the model's limit, numbers the
// interactive elements (their boxes drawn) and lists them.
func (d *Desktop) screenshot(ctx context.Context, b desktop.Backend, app string, som bool) tool.Result {
	img, err := b.Screenshot(ctx)
	if err != nil {
		d.lost(err)
		return tool.Fail(fmt.Sprintf("The screenshot failed: %v.", err))
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	s := desktop.Fit(w, h, maxSide, maxPixels)
	shot := desktop.Scale(img, s)
	d.scale = s
	var text strings.Builder
	fmt.Fprintf(&text, "Screenshot of %s: the screen is %dx%d", b.Name(), w, h)
	if s < 1 {
		fmt.Fprintf(&text, ", shown at %dx%d (coordinates you give are in the shown image's pixels; gantry maps them back)", shot.Bounds().Dx(), shot.Bounds().Dy())
	}
	text.WriteString(".\n")
	n := 0
	if som {
		els, fromTree, err := b.Elements(ctx, desktop.Query{App: app})
		if err != nil {
			fmt.Fprintf(&text, "No boxes: the accessibility tree could not be read (%v).\n", err)
		} else {
			d.marks = desktop.Marks(els, w, h)
			n = len(d.marks)
			if !fromTree {
				text.WriteString("No accessibility service answers here: the boxes are the visible top-level windows.\n")
			}
			desktop.DrawMarks(shot, d.marks, s)
			text.WriteString(d.markLines(s))
		}
	}
	data, err := encode(shot)
	if err != nil {
		return tool.Fail(fmt.Sprintf("The screenshot could not be encoded: %v.", err))
	}
	return tool.Result{Text: text.String(), Images: []llm.Image{{MediaType: "image/png", Data: data}},
		Display: tool.Display{Note: fmt.Sprintf("[screenshot %dx%d, %d elements]", shot.Bounds().Dx(), shot.Bounds().Dy(), n)}}
}

// markLines lists the marks as the model reads them: "[3] push button "OK" at 412,300
// 120x32", in the shown image's pixels.
func (d *Desktop) markLines(s float64) string {
	if len(d.marks) == 0 {
		return "No interactive element is visible.\n"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d interactive element(s), by number (click one with element):\n", len(d.marks))
	for i, e := range d.marks {
		fmt.Fprintf(&b, "[%d] %s at %d,%d %dx%d", i+1, describe(e), int(float64(e.X)*s), int(float64(e.Y)*s), int(float64(e.W)*s), int(float64(e.H)*s))
		if e.App != "" {
			fmt.Fprintf(&b, " (%s)", e.App)
		}
		b.WriteString("\n")
	}
	return b.String()
}

func encode(img image.Image) ([]byte, error) {
	var buf bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestSpeed}
	if err := enc.Encode(&buf, img); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// find ranks the elements whose name, role or description hold the query's words;
// the marks are read again, so that a match can be clicked by its number.
func (d *Desktop) find(ctx context.Context, b desktop.Backend, a args) tool.Result {
	els, fromTree, err := b.Elements(ctx, desktop.Query{App: a.App})
	if err != nil {
		d.lost(err)
		return tool.Fail(fmt.Sprintf("The accessibility tree could not be read: %v.", err))
	}
	w, h := b.Size()
	d.marks = desktop.Marks(els, w, h)
	words := strings.Fields(strings.ToLower(a.Query))
	type hit struct {
		e     desktop.Element
		score int
		mark  int
	}
	var hits []hit
	for _, e := range els {
		score := rank(e, words, strings.ToLower(strings.TrimSpace(a.Query)))
		if score == 0 {
			continue
		}
		h := hit{e: e, score: score}
		for i, m := range d.marks {
			if m == e {
				h.mark = i + 1
			}
		}
		if h.mark > 0 {
			h.score += 5
		}
		hits = append(hits, h)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
	var out strings.Builder
	if !fromTree {
		out.WriteString("No accessibility service answers here: only the top-level windows were searched.\n")
	}
	if len(hits) == 0 {
		fmt.Fprintf(&out, "No element matches %q (%d elements searched).", a.Query, len(els))
		return tool.Result{Text: out.String()}
	}
	fmt.Fprintf(&out, "%d element(s) match %q, best first:\n", len(hits), a.Query)
	for i, h := range hits {
		if i == 20 {
			fmt.Fprintf(&out, "… and %d more\n", len(hits)-20)
			break
		}
		s := d.scale
		x, y := int(float64(h.e.X)*s), int(float64(h.e.Y)*s)
		if h.mark > 0 {
			fmt.Fprintf(&out, "[%d] %s at %d,%d %dx%d", h.mark, describe(h.e), x, y, int(float64(h.e.W)*s), int(float64(h.e.H)*s))
		} else {
			fmt.Fprintf(&out, "(no box: not clickable or not on screen) %s at %d,%d", describe(h.e), x, y)
		}
		if h.e.Description != "" {
			fmt.Fprintf(&out, " — %s", h.e.Description)
		}
		if h.e.App != "" {
			fmt.Fprintf(&out, " (%s)", h.e.App)
		}
		out.WriteString("\n")
	}
	return tool.Result{Text: tool.Bound(out.String(), d.opts.MaxOutput)}
}

// rank scores an element against the query: an exact name first, then names holding
// the whole query, then words found in the name, role or description.
func rank(e desktop.Element, words []string, whole string) int {
	name, role, desc := strings.ToLower(e.Name), strings.ToLower(e.Role), strings.ToLower(e.Description)
	score := 0
	switch {
	case name == whole:
		score += 100
	case strings.Contains(name, whole):
		score += 50
	}
	for _, w := range words {
		switch {
		case strings.Contains(name, w):
			score += 10
		case strings.Contains(role, w):
			score += 4
		case strings.Contains(desc, w):
			score += 3
		default:
			if score < 50 {
				return 0 // every word must be found somewhere
			}
		}
	}
	return score
}

// tree lists the accessibility tree, indented by depth, with the filters asked.
func (d *Desktop) tree(ctx context.Context, b desktop.Backend, a args) tool.Result {
	els, fromTree, err := b.Elements(ctx, desktop.Query{App: a.App, Depth: a.Depth, Role: a.Role})
	if err != nil {
		d.lost(err)
		return tool.Fail(fmt.Sprintf("The accessibility tree could not be read: %v.", err))
	}
	w, h := b.Size()
	all, _, _ := b.Elements(ctx, desktop.Query{App: a.App})
	d.marks = desktop.Marks(all, w, h)
	var out strings.Builder
	if !fromTree {
		out.WriteString("No accessibility service answers here: the top-level windows stand for the tree.\n")
	}
	n := 0
	app := ""
	for _, e := range els {
		if a.Clickable && !e.Clickable {
			continue
		}
		if e.App != app {
			app = e.App
			fmt.Fprintf(&out, "%s:\n", app)
		}
		n++
		mark := ""
		for i, m := range d.marks {
			if m == e {
				mark = fmt.Sprintf("[%d] ", i+1)
			}
		}
		s := d.scale
		fmt.Fprintf(&out, "%s%s%s at %d,%d %dx%d", strings.Repeat("  ", e.Depth), mark, describe(e),
			int(float64(e.X)*s), int(float64(e.Y)*s), int(float64(e.W)*s), int(float64(e.H)*s))
		if e.Focused {
			out.WriteString(" (focused)")
		}
		out.WriteString("\n")
	}
	if n == 0 {
		return tool.Result{Text: out.String() + "No element matches."}
	}
	return tool.Result{Text: tool.Bound(out.String(), d.opts.MaxOutput)}
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
