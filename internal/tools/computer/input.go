package computer

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// inputOp is an input action: it acts on the display and says what it did.
type inputOp func(ctx context.Context, b desktop.Backend, a args) (string, error)

// badPoint is a point the model gave that maps to nothing: said as it is, not as the
// display's failure.
type badPoint struct{ error }

// input runs an input action on the display, and takes the small screenshot of its
// result when the call asks for one.
func (d *Desktop) input(do inputOp) func(ctx context.Context, env tool.Env, a args) tool.Result {
	return d.on(func(ctx context.Context, b desktop.Backend, a args) tool.Result {
		fail := func(err error) tool.Result {
			var bad badPoint
			if errors.As(err, &bad) {
				return tool.Fail(bad.Error())
			}
			d.lost(err)
			return tool.Fail(fmt.Sprintf("computer %s failed: %v.", a.Action, err))
		}
		did, err := do(ctx, b, a)
		if err != nil {
			return fail(err)
		}
		r := tool.Result{Text: did}
		if !a.ScreenshotAfter {
			return r
		}
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
		return r
	})
}

// click is click, double_click and right_click.
func (d *Desktop) click(ctx context.Context, b desktop.Backend, a args) (string, error) {
	x, y, what, err := d.point(a.Element, a.X, a.Y)
	if err != nil {
		return "", err
	}
	btn, n := desktop.Left, 1
	switch a.Action {
	case "double_click":
		n = 2
	case "right_click":
		btn = desktop.Right
	}
	if err := b.Click(ctx, x, y, btn, n); err != nil {
		return "", err
	}
	return fmt.Sprintf("%s at %s.", strings.ReplaceAll(capital(a.Action), "_", " ")+"ed", what), nil
}

func (d *Desktop) drag(ctx context.Context, b desktop.Backend, a args) (string, error) {
	x0, y0, from, err := d.point(a.StartElement, a.StartX, a.StartY)
	if err != nil {
		return "", err
	}
	x1, y1, to, err := d.point(a.EndElement, a.EndX, a.EndY)
	if err != nil {
		return "", err
	}
	dur := seconds(a.Duration)
	if dur == 0 {
		dur = 300 * time.Millisecond
	}
	if err := b.Drag(ctx, x0, y0, x1, y1, dur); err != nil {
		return "", err
	}
	return fmt.Sprintf("Dragged from %s to %s.", from, to), nil
}

func (d *Desktop) scroll(ctx context.Context, b desktop.Backend, a args) (string, error) {
	x, y, what := -1, -1, "the pointer"
	if a.Element != nil || a.X != nil {
		var err error
		if x, y, what, err = d.point(a.Element, a.X, a.Y); err != nil {
			return "", err
		}
	} else {
		w, h := b.Size()
		x, y = w/2, h/2
		what = "the middle of the screen"
	}
	if err := b.Scroll(ctx, x, y, a.DX, a.DY); err != nil {
		return "", err
	}
	return fmt.Sprintf("Scrolled %d notch(es) down, %d right at %s.", a.DY, a.DX, what), nil
}

func typeText(ctx context.Context, b desktop.Backend, a args) (string, error) {
	if err := b.Type(ctx, a.Text, seconds(a.Delay)); err != nil {
		return "", err
	}
	return fmt.Sprintf("Typed %d character(s).", len([]rune(a.Text))), nil
}

func pressKey(ctx context.Context, b desktop.Backend, a args) (string, error) {
	if err := b.Key(ctx, a.Key); err != nil {
		return "", err
	}
	return "Pressed " + a.Key + ".", nil
}

func pressKeys(ctx context.Context, b desktop.Backend, a args) (string, error) {
	for _, k := range a.Keys {
		if err := b.Key(ctx, k); err != nil {
			return "", err
		}
		time.Sleep(30 * time.Millisecond)
	}
	return "Pressed " + strings.Join(a.Keys, ", then ") + ".", nil
}

// seconds is a duration given in seconds, to the millisecond.
func seconds(s float64) time.Duration {
	return time.Duration(math.Round(s*1000)) * time.Millisecond
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
			return 0, 0, "", badPoint{errors.New("there are no numbered boxes yet: take a screenshot (or find_element) first, or give x and y")}
		}
		if n < 1 || n > len(d.marks) {
			return 0, 0, "", badPoint{fmt.Errorf("the latest screenshot has boxes 1 to %d, not %d", len(d.marks), n)}
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
