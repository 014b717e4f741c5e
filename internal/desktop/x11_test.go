//go:build !darwin

package desktop

import (
	"bytes"
	"context"
	"image/png"
	"io"
	"log"
	"os/exec"
	"testing"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"

	"github.com/gantry-dev/gantry/internal/desktop/desktoptest"
)

// A screenshot is the display's size, and its pixels are the ones ImageMagick's
// import reads of the same screen.
func TestScreenshotMatchesImport(t *testing.T) {
	display := desktoptest.StartX(t, "640x480x24")
	desktoptest.Need(t, "import")
	// A window of a known colour, drawn by another client.
	xgb.Logger = log.New(io.Discard, "", 0)
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	screen := xproto.Setup(c).DefaultScreen(c)
	win, _ := xproto.NewWindowId(c)
	if err := xproto.CreateWindowChecked(c, screen.RootDepth, win, screen.Root, 100, 50, 200, 120, 0,
		xproto.WindowClassInputOutput, screen.RootVisual, xproto.CwBackPixel, []uint32{0x3366cc}).Check(); err != nil {
		t.Fatal(err)
	}
	if err := xproto.MapWindowChecked(c, win).Check(); err != nil {
		t.Fatal(err)
	}
	xproto.GetInputFocus(c).Reply() // a round trip: the window is drawn

	b, err := Open(display)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if w, h := b.Size(); w != 640 || h != 480 {
		t.Fatalf("size %dx%d", w, h)
	}
	img, err := b.Screenshot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if img.Bounds().Dx() != 640 || img.Bounds().Dy() != 480 {
		t.Fatalf("screenshot %v", img.Bounds())
	}
	out, err := exec.Command("import", "-display", display, "-window", "root", "png:-").Output()
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	ref, err := png.Decode(bytes.NewReader(out))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range [][2]int{{150, 100}, {10, 10}, {299, 169}, {300, 170}, {639, 479}} {
		r1, g1, b1, _ := img.At(p[0], p[1]).RGBA()
		r2, g2, b2, _ := ref.At(p[0], p[1]).RGBA()
		if r1>>8 != r2>>8 || g1>>8 != g2>>8 || b1>>8 != b2>>8 {
			t.Errorf("pixel %v: gantry %02x%02x%02x, import %02x%02x%02x", p, r1>>8, g1>>8, b1>>8, r2>>8, g2>>8, b2>>8)
		}
	}
	if r, g, bl, _ := img.At(150, 100).RGBA(); r>>8 != 0x33 || g>>8 != 0x66 || bl>>8 != 0xcc {
		t.Errorf("the window's colour: %02x%02x%02x", r>>8, g>>8, bl>>8)
	}
	// No accessibility bus here: the top-level windows stand for the tree.
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	els, fromTree, err := b.Elements(context.Background(), Query{})
	if err != nil || fromTree {
		t.Fatalf("elements: %v, from the tree %v", err, fromTree)
	}
	found := false
	for _, e := range els {
		if e.X == 100 && e.Y == 50 && e.W == 200 && e.H == 120 {
			found = true
		}
	}
	if !found {
		t.Errorf("the window is not among %+v", els)
	}
}

func TestSplitCombo(t *testing.T) {
	for _, c := range []struct {
		in, key string
		mods    int
		bad     bool
	}{
		{"ctrl+a", "a", 1, false}, {"enter", "enter", 0, false}, {"shift+Tab", "tab", 1, false}, {"ctrl+shift+T", "T", 2, false},
		{"ctrl++", "+", 1, false}, {"hyper+a", "", 0, true}, {"ctrl+", "", 0, true}, {"launch", "", 0, true}, {"", "", 0, true},
	} {
		mods, key, err := SplitCombo(c.in)
		if (err != nil) != c.bad || key != c.key || len(mods) != c.mods {
			t.Errorf("%q: %v %q %v", c.in, mods, key, err)
		}
	}
}

func TestFit(t *testing.T) {
	if s := Fit(1024, 768, 1568, 1_150_000); s != 1 {
		t.Errorf("1024x768: %v", s)
	}
	s := Fit(2560, 1440, 1568, 1_150_000)
	if w, h := 2560*s, 1440*s; w > 1568 || w*h > 1_150_001 {
		t.Errorf("2560x1440 → %.0fx%.0f", w, h)
	}
}
