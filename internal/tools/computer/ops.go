package computer

import (
	"context"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/tool"
)

type args struct {
	Action          string   `json:"action" jsonschema_description:"What to do."`
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

// ops is the computer tool's table of actions. Looking at the desktop (a screenshot,
// finding an element, the accessibility tree) is read and not asked for in default
// mode; every input action is exec.
func (d *Desktop) ops() *tool.Ops[args] {
	read, exec := tool.LevelRead, tool.LevelExec
	clickOp := func(name string) tool.Op[args] {
		return tool.Op[args]{Name: name, Level: exec, Check: needPoint("a point", pointOf), Title: clickTitle, Run: d.input(d.click)}
	}
	return &tool.Ops[args]{Arg: "action", List: []tool.Op[args]{
		{Name: "screenshot", Level: read, Kind: tool.KindRead,
			Title: func(tool.Env, args, []string) string { return "Take a screenshot" },
			Run: d.on(func(ctx context.Context, b desktop.Backend, a args) tool.Result {
				return d.screenshot(ctx, b, a.App, a.SOM == nil || *a.SOM)
			})},
		clickOp("click"),
		clickOp("double_click"),
		clickOp("right_click"),
		{Name: "drag", Level: exec,
			Check: func(a args) string {
				if m := needPoint("a start", startOf)(a); m != "" {
					return m
				}
				return needPoint("an end", endOf)(a)
			},
			Title: func(_ tool.Env, a args, _ []string) string {
				return "drag from " + where(startOf(a)) + " to " + where(endOf(a))
			},
			Run: d.input(d.drag)},
		{Name: "scroll", Level: exec,
			Check: func(a args) string {
				if a.DX == 0 && a.DY == 0 {
					return "computer scroll needs dx or dy: notches to scroll (dy > 0 is down)."
				}
				if a.Element == nil && (a.X == nil) != (a.Y == nil) {
					return "computer scroll needs both x and y, or element, or neither (the pointer's place)."
				}
				return ""
			},
			Title: func(_ tool.Env, a args, _ []string) string {
				return fmt.Sprintf("scroll %d,%d at %s", a.DX, a.DY, where(pointOf(a)))
			},
			Run: d.input(d.scroll)},
		{Name: "type", Level: exec,
			Check: func(a args) string {
				if a.Text == "" {
					return "computer type needs text."
				}
				return ""
			},
			Principal: func(a args) string { return "type " + a.Text },
			Title:     func(_ tool.Env, a args, _ []string) string { return fmt.Sprintf("type %q", oneLine(a.Text, 60)) },
			Run:       d.input(typeText)},
		{Name: "key", Level: exec,
			Check: func(a args) string {
				if _, _, err := desktop.SplitCombo(a.Key); err != nil || a.Key == "" {
					return fmt.Sprintf("computer key: %q is not a key: %v.", a.Key, errOr(err, "it is empty"))
				}
				return ""
			},
			Principal: func(a args) string { return "key " + a.Key },
			Title:     func(_ tool.Env, a args, _ []string) string { return "press " + a.Key },
			Run:       d.input(pressKey)},
		{Name: "keys", Level: exec,
			Check: func(a args) string {
				if len(a.Keys) == 0 {
					return "computer keys needs keys: a list of combinations."
				}
				for _, k := range a.Keys {
					if _, _, err := desktop.SplitCombo(k); err != nil {
						return fmt.Sprintf("computer keys: %q is not a key: %v.", k, err)
					}
				}
				return ""
			},
			Principal: func(a args) string { return "keys " + strings.Join(a.Keys, " ") },
			Title:     func(_ tool.Env, a args, _ []string) string { return "press " + strings.Join(a.Keys, ", ") },
			Run:       d.input(pressKeys)},
		{Name: "find_element", Level: read, Kind: tool.KindSearch,
			Check: func(a args) string {
				if strings.TrimSpace(a.Query) == "" {
					return "computer find_element needs a query."
				}
				return ""
			},
			Title: func(_ tool.Env, a args, _ []string) string { return fmt.Sprintf("find %q", a.Query) },
			Run:   d.on(d.find)},
		{Name: "ax_tree", Level: read, Kind: tool.KindRead,
			Title: func(tool.Env, args, []string) string { return "read the accessibility tree" },
			Run:   d.on(d.tree)},
	}}
}

// pointOf, startOf and endOf are the points of a click or scroll and of a drag's
// two ends: a box's number, or x and y.
func pointOf(a args) (el, x, y *int) { return a.Element, a.X, a.Y }
func startOf(a args) (el, x, y *int) { return a.StartElement, a.StartX, a.StartY }
func endOf(a args) (el, x, y *int)   { return a.EndElement, a.EndX, a.EndY }

// needPoint refuses a call whose point (what) is neither a box's number nor x and y.
func needPoint(what string, of func(args) (el, x, y *int)) func(a args) string {
	return func(a args) string {
		el, x, y := of(a)
		if el == nil && (x == nil || y == nil) {
			return fmt.Sprintf("computer %s needs %s: element (a box's number) or x and y.", a.Action, what)
		}
		if el != nil && *el < 1 {
			return fmt.Sprintf("computer %s: element is a box's number, 1 or more, not %d.", a.Action, *el)
		}
		return ""
	}
}

func clickTitle(_ tool.Env, a args, _ []string) string {
	return strings.ReplaceAll(a.Action, "_", " ") + " " + where(pointOf(a))
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

func errOr(err error, s string) string {
	if err != nil {
		return err.Error()
	}
	return s
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(s, "\n", "⏎")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}
