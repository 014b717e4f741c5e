package computer

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"log"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/desktop"
	"github.com/gantry-dev/gantry/internal/desktop/desktoptest"
	"github.com/gantry-dev/gantry/internal/tool"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func newDesktop(t *testing.T, display string) *Desktop {
	t.Helper()
	d := New(Options{Open: func() (desktop.Backend, error) { return desktop.Open(display) }})
	t.Cleanup(func() { _ = d.Close(context.Background()) })
	return d
}

func do(t *testing.T, d *Desktop, input string) tool.Result {
	t.Helper()
	tl := d.Tools()[0]
	inv, msg := tl.Decode(tool.Env{Cwd: t.TempDir()}, json.RawMessage(input))
	if msg != "" {
		return tool.Fail(msg)
	}
	return inv.Run(context.Background())
}

func ok(t *testing.T, d *Desktop, input string) tool.Result {
	t.Helper()
	r := do(t, d, input)
	if r.IsError {
		t.Fatalf("%s: %s", input, r.Text)
	}
	return r
}

var markLine = regexp.MustCompile(`(?m)^\[(\d+)\] (.+?) at (\d+),(\d+) (\d+)x(\d+)`)

// mark finds the number of the box whose description holds what.
func mark(t *testing.T, text, what string) (n, x, y, w, h int) {
	t.Helper()
	for _, m := range markLine.FindAllStringSubmatch(text, -1) {
		if strings.Contains(m[2], what) {
			v := func(i int) int { n, _ := strconv.Atoi(m[i]); return n }
			return v(1), v(3), v(4), v(5), v(6)
		}
	}
	t.Fatalf("no box %q in:\n%s", what, text)
	return
}

// A zenity entry dialog, driven as a person would: find OK, type into the entry, click
// OK by its number; zenity prints what was typed.
func TestZenityEntry(t *testing.T) {
	display := desktoptest.StartX(t, "1024x768x24")
	desktoptest.StartDBus(t, display)
	_, out := desktoptest.App(t, display, "zenity", "--entry", "--title", "Name", "--text", "Your name?")
	d := newDesktop(t, display)
	desktoptest.WaitFor(t, "zenity's OK button", 20*time.Second, func() bool {
		r := do(t, d, `{"action":"find_element","query":"OK","app":"zenity"}`)
		return !r.IsError && strings.Contains(r.Text, `push button "OK"`)
	})
	found := ok(t, d, `{"action":"find_element","query":"OK"}`)
	if !strings.HasPrefix(strings.SplitN(found.Text, "\n", 3)[1], "[") || !strings.Contains(found.Text, `push button "OK"`) {
		t.Errorf("find_element OK: the best match is not the numbered button:\n%s", found.Text)
	}
	shot := ok(t, d, `{"action":"screenshot"}`)
	if len(shot.Images) != 1 || !strings.Contains(shot.Display.Note, "[screenshot 1024x768, ") {
		t.Fatalf("screenshot: %d images, note %q", len(shot.Images), shot.Display.Note)
	}
	okN, bx, by, bw, bh := mark(t, shot.Text, `push button "OK"`)
	textN, _, _, _, _ := mark(t, shot.Text, "text")
	// The boxes are drawn where the elements are.
	img, err := png.Decode(bytes.NewReader(shot.Images[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 1024 || img.Bounds().Dy() != 768 {
		t.Errorf("screenshot size %v", img.Bounds())
	}
	for _, p := range [][2]int{{bx + bw/2, by + bh - 1}, {bx, by + bh/2}, {bx + bw - 1, by + bh/2}} {
		r, g, b, _ := img.At(p[0], p[1]).RGBA()
		if uint8(r>>8) != desktop.MarkColor.R || uint8(g>>8) != desktop.MarkColor.G || uint8(b>>8) != desktop.MarkColor.B {
			t.Errorf("the OK box's edge at %v is %02x%02x%02x, not the mark colour", p, r>>8, g>>8, b>>8)
		}
	}
	ok(t, d, fmt.Sprintf(`{"action":"click","element":%d}`, textN))
	ok(t, d, `{"action":"type","text":"Ada Lovelace, 1843!","delay":0.005}`)
	r := ok(t, d, fmt.Sprintf(`{"action":"click","element":%d}`, okN))
	if !strings.Contains(r.Text, `element [`+strconv.Itoa(okN)+`] push button "OK"`) || len(r.Images) != 0 {
		t.Errorf("click: %q, %d images", r.Text, len(r.Images))
	}
	desktoptest.WaitFor(t, "zenity to print the entry", 10*time.Second, func() bool { return strings.Contains(out.String(), "\n") })
	if got := strings.TrimSpace(out.String()); got != "Ada Lovelace, 1843!" {
		t.Errorf("zenity printed %q", got)
	}
}

// keys and key: select all, delete, type again, enter.
func TestZenityKeys(t *testing.T) {
	display := desktoptest.StartX(t, "800x600x24")
	desktoptest.StartDBus(t, display)
	_, out := desktoptest.App(t, display, "zenity", "--entry", "--title", "Keys", "--text", "Word?", "--entry-text", "first")
	d := newDesktop(t, display)
	desktoptest.WaitFor(t, "zenity's entry", 20*time.Second, func() bool {
		r := do(t, d, `{"action":"find_element","query":"text","app":"zenity"}`)
		return !r.IsError && strings.Contains(r.Text, "[")
	})
	ok(t, d, `{"action":"keys","keys":["ctrl+a","delete"]}`)
	ok(t, d, `{"action":"type","text":"Second"}`)
	r := ok(t, d, `{"action":"key","key":"enter","screenshot_after":true}`)
	if len(r.Images) != 1 || !strings.Contains(r.Display.Note, "[screenshot ") {
		t.Errorf("screenshot_after: %d images, note %q", len(r.Images), r.Display.Note)
	}
	desktoptest.WaitFor(t, "zenity to print the entry", 10*time.Second, func() bool { return strings.Contains(out.String(), "\n") })
	if got := strings.TrimSpace(out.String()); got != "Second" {
		t.Errorf("zenity printed %q", got)
	}
}

// In gtk3-demo: scrolling the list of demos brings later ones on screen, and dragging
// the pane's handle widens the list, both seen through the accessibility tree; ax_tree
// filters by depth, role and clickable.
func TestGtkDemoDragScrollTree(t *testing.T) {
	display := desktoptest.StartX(t, "1280x800x24")
	desktoptest.StartDBus(t, display)
	desktoptest.App(t, display, "gtk3-demo")
	d := newDesktop(t, display)
	var tree string
	desktoptest.WaitFor(t, "gtk3-demo's list", 30*time.Second, func() bool {
		r := do(t, d, `{"action":"ax_tree","app":"gtk3-demo","role":"table cell"}`)
		tree = r.Text
		return !r.IsError && strings.Contains(r.Text, "Application Class")
	})
	cell := func(name string) (x, y int, on bool) {
		r := ok(t, d, `{"action":"ax_tree","app":"gtk3-demo","role":"table cell"}`)
		m := regexp.MustCompile(`table cell "` + regexp.QuoteMeta(name) + `" at (-?\d+),(-?\d+)`).FindStringSubmatch(r.Text)
		if m == nil {
			t.Fatalf("no cell %q in:\n%s", name, r.Text)
		}
		x, _ = strconv.Atoi(m[1])
		y, _ = strconv.Atoi(m[2])
		return x, y, x >= 0 && y >= 0
	}
	_, y0, on0 := cell("Application Class")
	if !on0 {
		t.Fatalf("the first demo is not on screen:\n%s", tree)
	}
	if _, _, on := cell("Revealer"); on {
		t.Fatal("a late demo is on screen before any scroll")
	}
	// Drag the list's scroll bar's thumb to the bottom: the late demos come on screen.
	r := ok(t, d, `{"action":"ax_tree","app":"gtk3-demo","role":"scroll bar"}`)
	m := regexp.MustCompile(`scroll bar at (\d+),(\d+) (\d+)x(\d+)`).FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("no scroll bar:\n%s", r.Text)
	}
	bx, _ := strconv.Atoi(m[1])
	by, _ := strconv.Atoi(m[2])
	bw, _ := strconv.Atoi(m[3])
	bh, _ := strconv.Atoi(m[4])
	ok(t, d, fmt.Sprintf(`{"action":"drag","start_x":%d,"start_y":%d,"end_x":%d,"end_y":%d,"duration":0.4}`, bx+bw/2, by+12, bx+bw/2, by+bh-5))
	desktoptest.WaitFor(t, "the drag to scroll the list", 5*time.Second, func() bool {
		_, _, first := cell("Application Class")
		_, _, late := cell("Revealer")
		return !first && late
	})
	// Scroll back up on the list (its box from a screenshot): the first demo returns.
	shot := ok(t, d, `{"action":"screenshot","app":"gtk3-demo"}`)
	n, _, _, _, _ := mark(t, shot.Text, "tree table")
	ok(t, d, fmt.Sprintf(`{"action":"scroll","element":%d,"dy":-60}`, n))
	desktoptest.WaitFor(t, "the list to scroll back", 5*time.Second, func() bool {
		_, y, on := cell("Application Class")
		return on && y == y0
	})
	// ax_tree's filters.
	shallow := ok(t, d, `{"action":"ax_tree","app":"gtk3-demo","depth":2}`).Text
	for _, line := range strings.Split(shallow, "\n") {
		if strings.HasPrefix(line, "      ") { // depth 3 is six spaces
			t.Errorf("depth 2 listed %q", line)
		}
	}
	buttons := ok(t, d, `{"action":"ax_tree","app":"gtk3-demo","role":"push button"}`).Text
	if !strings.Contains(buttons, `push button "Run"`) || strings.Contains(buttons, "table cell") {
		t.Errorf("role push button:\n%s", buttons)
	}
	clickable := ok(t, d, `{"action":"ax_tree","app":"gtk3-demo","clickable":true,"depth":3}`).Text
	if strings.Contains(clickable, "label ") || !strings.Contains(clickable, "push button") {
		t.Errorf("clickable:\n%s", clickable)
	}
}

// No display: an error sentence, and Usable says so (the tool is not declared); a
// display that goes away mid-session: one sentence.
func TestNoDisplayAndDisplayGone(t *testing.T) {
	d := New(Options{Open: func() (desktop.Backend, error) { return desktop.Open(":9999") }})
	defer d.Close(context.Background())
	if d.Usable() {
		t.Fatal("a display that does not exist is usable")
	}
	if r := do(t, d, `{"action":"screenshot"}`); !r.IsError || !strings.Contains(r.Text, "No display is reachable") {
		t.Errorf("no display: %q", r.Text)
	}
	display, stop := desktoptest.StartXStoppable(t, "640x480x24")
	d2 := newDesktop(t, display)
	if !d2.Usable() {
		t.Fatal("a running display is not usable")
	}
	ok(t, d2, `{"action":"screenshot","som":false}`)
	stop()
	r := do(t, d2, `{"action":"screenshot","som":false}`)
	if !r.IsError || strings.Count(r.Text, ".") > 3 || !strings.Contains(r.Text, "went away") && !strings.Contains(r.Text, "failed") {
		t.Errorf("a display gone: %q", r.Text)
	}
	if d2.Usable() {
		t.Error("a display gone is still usable")
	}
}

func TestBadArguments(t *testing.T) {
	d := New(Options{Open: func() (desktop.Backend, error) { return nil, desktop.ErrNoDisplay }})
	for input, want := range map[string]string{
		`{"action":"click"}`:                        "element (a box's number) or x and y",
		`{"action":"click","element":0}`:            "1 or more",
		`{"action":"drag","start_x":1,"start_y":1}`: "an end",
		`{"action":"scroll"}`:                       "dx or dy",
		`{"action":"type"}`:                         "needs text",
		`{"action":"key","key":"hyper+q"}`:          "not a modifier",
		`{"action":"keys","keys":[]}`:               "needs keys",
		`{"action":"find_element"}`:                 "needs a query",
		`{"action":"paint"}`:                        "action",
		`{"action":"type","text":"x","delay":5}`:    `argument "delay" must be at most 1, not 5.`,
		// The former delay_ms, in milliseconds, is still read, with a note.
		`{"action":"type","text":"x","delay_ms":5000}`: "(Note: delay_ms is deprecated; use delay, in seconds.)",
	} {
		if r := do(t, d, input); !r.IsError || !strings.Contains(r.Text, want) {
			t.Errorf("%s: %q (want %q)", input, r.Text, want)
		}
	}
}

// A screen larger than the model's limit is shown scaled, and the coordinates given in
// the shown image land where they point on the screen.
func TestScaledScreenshotMapsBack(t *testing.T) {
	display := desktoptest.StartX(t, "2560x1600x24")
	d := newDesktop(t, display)
	r := ok(t, d, `{"action":"screenshot","som":false}`)
	img, err := png.Decode(bytes.NewReader(r.Images[0].Data))
	if err != nil {
		t.Fatal(err)
	}
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	if w > 1568 || w*h > 1_150_000 || w < 1000 || !strings.Contains(r.Text, fmt.Sprintf("shown at %dx%d", w, h)) {
		t.Fatalf("a 2560x1600 screen shown at %dx%d: %s", w, h, r.Text)
	}
	// Click at the shown image's middle: the pointer is at the screen's.
	ok(t, d, fmt.Sprintf(`{"action":"click","x":%d,"y":%d}`, w/2, h/2))
	xgb.Logger = log.New(io.Discard, "", 0)
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	p, err := xproto.QueryPointer(c, xproto.Setup(c).DefaultScreen(c).Root).Reply()
	if err != nil {
		t.Fatal(err)
	}
	if dx, dy := int(p.RootX)-1280, int(p.RootY)-800; dx < -2 || dx > 2 || dy < -2 || dy > 2 {
		t.Errorf("the pointer is at %d,%d, not the screen's middle", p.RootX, p.RootY)
	}
}
