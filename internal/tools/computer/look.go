package computer

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"image"
	"image/png"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

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

func describe(e desktop.Element) string {
	if e.Name == "" {
		return e.Role
	}
	return fmt.Sprintf("%s %q", e.Role, e.Name)
}
