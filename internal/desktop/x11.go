//go:build !darwin

package desktop

import (
	"context"
	"errors"
	"fmt"
	"image"
	"io"
	"log"
	"os"
	"strings"
	"sync"
	"time"

	"github.com/jezek/xgb"
	"github.com/jezek/xgb/xproto"
	"github.com/jezek/xgb/xtest"
)

// Open connects to the display of $DISPLAY (display "" ) or the one named.
func Open(display string) (Backend, error) {
	if display == "" {
		display = os.Getenv("DISPLAY")
	}
	if display == "" {
		return nil, fmt.Errorf("%w: DISPLAY is not set", ErrNoDisplay)
	}
	return openX11(display)
}

// x11 is a display reached over the X protocol: screenshots with GetImage, input with
// XTEST's FakeInput, no external program.
type x11 struct {
	display string
	conn    *xgb.Conn
	root    xproto.Window
	w, h    int
	order   byte // the image byte order

	mu      sync.Mutex // input and the keyboard map
	minKey  xproto.Keycode
	perKey  int
	keysyms []xproto.Keysym

	a11y *atspi // nil until the first Elements; a11yErr says why it is not there
}

// quietXGB silences xgb's logger, which would print on stderr (no .Xauthority, …):
// once, as the open connections' goroutines read it.
var quietXGB = sync.OnceFunc(func() { xgb.Logger = log.New(io.Discard, "", 0) })

func openX11(display string) (*x11, error) {
	quietXGB()
	c, err := xgb.NewConnDisplay(display)
	if err != nil {
		return nil, fmt.Errorf("%w: the X display %s does not answer (%v)", ErrNoDisplay, display, err)
	}
	if err := xtest.Init(c); err != nil {
		c.Close()
		return nil, fmt.Errorf("the X display %s has no XTEST extension, which input needs: %v", display, err)
	}
	setup := xproto.Setup(c)
	screen := setup.DefaultScreen(c)
	x := &x11{display: display, conn: c, root: screen.Root, w: int(screen.WidthInPixels), h: int(screen.HeightInPixels),
		order: setup.ImageByteOrder, minKey: setup.MinKeycode}
	count := int(setup.MaxKeycode) - int(setup.MinKeycode) + 1
	km, err := xproto.GetKeyboardMapping(c, setup.MinKeycode, byte(count)).Reply()
	if err != nil {
		c.Close()
		return nil, fmt.Errorf("reading the keyboard map of %s: %v", display, err)
	}
	x.perKey, x.keysyms = int(km.KeysymsPerKeycode), km.Keysyms
	return x, nil
}

func (x *x11) Name() string     { return x.display }
func (x *x11) Size() (int, int) { return x.w, x.h }
func (x *x11) alive(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("the X display %s stopped answering: %v", x.display, err)
}

func (x *x11) Close() error {
	if x.a11y != nil {
		x.a11y.close()
	}
	x.conn.Close()
	return nil
}

// Screenshot reads the root window's pixels (32 bits a pixel, as Xvfb and every
// TrueColor server of depth 24 give them).
func (x *x11) Screenshot(ctx context.Context) (*image.RGBA, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep, err := xproto.GetImage(x.conn, xproto.ImageFormatZPixmap, xproto.Drawable(x.root), 0, 0, uint16(x.w), uint16(x.h), 0xffffffff).Reply()
	if err != nil {
		return nil, x.alive(err)
	}
	if len(rep.Data) < x.w*x.h*4 {
		return nil, fmt.Errorf("the X display %s gave %d bytes for %dx%d pixels: only 32-bit TrueColor screens are read", x.display, len(rep.Data), x.w, x.h)
	}
	img := image.NewRGBA(image.Rect(0, 0, x.w, x.h))
	src, dst := rep.Data, img.Pix
	for i := 0; i < x.w*x.h; i++ {
		s := src[i*4 : i*4+4]
		d := dst[i*4 : i*4+4]
		if x.order == xproto.ImageOrderLSBFirst { // B G R X
			d[0], d[1], d[2] = s[2], s[1], s[0]
		} else { // X R G B
			d[0], d[1], d[2] = s[1], s[2], s[3]
		}
		d[3] = 0xff
	}
	return img, nil
}

func (x *x11) fake(typ, detail byte, px, py int) error {
	return xtest.FakeInputChecked(x.conn, typ, detail, 0, x.root, int16(px), int16(py), 0).Check()
}

func (x *x11) Move(ctx context.Context, px, py int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.alive(x.fake(xproto.MotionNotify, 0, px, py))
}

func (x *x11) Click(ctx context.Context, px, py int, b Button, count int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.fake(xproto.MotionNotify, 0, px, py); err != nil {
		return x.alive(err)
	}
	for i := range count {
		if i > 0 {
			time.Sleep(40 * time.Millisecond) // within a double-click's interval, apart
		}
		if err := x.fake(xproto.ButtonPress, byte(b), 0, 0); err != nil {
			return x.alive(err)
		}
		if err := x.fake(xproto.ButtonRelease, byte(b), 0, 0); err != nil {
			return x.alive(err)
		}
	}
	return nil
}

func (x *x11) Drag(ctx context.Context, x0, y0, x1, y1 int, d time.Duration) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.fake(xproto.MotionNotify, 0, x0, y0); err != nil {
		return x.alive(err)
	}
	if err := x.fake(xproto.ButtonPress, byte(Left), 0, 0); err != nil {
		return x.alive(err)
	}
	steps := max(int(d/(15*time.Millisecond)), 8)
	for i := 1; i <= steps; i++ {
		if ctx.Err() != nil {
			break
		}
		time.Sleep(d / time.Duration(steps))
		px, py := x0+(x1-x0)*i/steps, y0+(y1-y0)*i/steps
		if err := x.fake(xproto.MotionNotify, 0, px, py); err != nil {
			return x.alive(err)
		}
	}
	return x.alive(x.fake(xproto.ButtonRelease, byte(Left), 0, 0))
}

func (x *x11) Scroll(ctx context.Context, px, py, dx, dy int) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	if err := x.fake(xproto.MotionNotify, 0, px, py); err != nil {
		return x.alive(err)
	}
	wheel := func(button byte, n int) error {
		for range n {
			if err := x.fake(xproto.ButtonPress, button, 0, 0); err != nil {
				return err
			}
			if err := x.fake(xproto.ButtonRelease, button, 0, 0); err != nil {
				return err
			}
		}
		return nil
	}
	var err error
	switch {
	case dy > 0:
		err = wheel(5, dy)
	case dy < 0:
		err = wheel(4, -dy)
	}
	if err == nil {
		switch {
		case dx > 0:
			err = wheel(7, dx)
		case dx < 0:
			err = wheel(6, -dx)
		}
	}
	return x.alive(err)
}

// Type types text: each character is the key of its keysym (with shift where the
// keyboard map has it shifted); a character no key has is bound to a spare keycode
// for the time of its press.
func (x *x11) Type(ctx context.Context, text string, delay time.Duration) error {
	x.mu.Lock()
	defer x.mu.Unlock()
	for _, r := range text {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := x.tap(runeKeysym(r), nil); err != nil {
			return err
		}
		if delay > 0 {
			time.Sleep(delay)
		}
	}
	return nil
}

// Key presses a combination: its modifiers down, the key pressed and released, the
// modifiers up.
func (x *x11) Key(ctx context.Context, combo string) error {
	mods, key, err := SplitCombo(combo)
	if err != nil {
		return fmt.Errorf("%q: %v", combo, err)
	}
	var held []xproto.Keysym
	for _, m := range mods {
		held = append(held, modifierKeysym[m])
	}
	ks, ok := namedKeysym[key]
	if !ok {
		if m, isMod := modifierKeysym[key]; isMod {
			ks = m
		} else {
			ks = runeKeysym([]rune(key)[0])
		}
	}
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.tap(ks, held)
}

// tap presses and releases the key of ks, with the held modifiers down; b.mu is held.
func (x *x11) tap(ks xproto.Keysym, held []xproto.Keysym) error {
	kc, shifted, spare, err := x.keycode(ks)
	if err != nil {
		return err
	}
	if spare {
		defer x.unbind(kc)
	}
	var down []xproto.Keycode
	if shifted {
		held = append(held, modifierKeysym["shift"])
	}
	for _, m := range held {
		mk, _, _, err := x.keycode(m)
		if err != nil {
			return err
		}
		if err := x.fake(xproto.KeyPress, byte(mk), 0, 0); err != nil {
			return x.alive(err)
		}
		down = append(down, mk)
	}
	err = x.fake(xproto.KeyPress, byte(kc), 0, 0)
	if err == nil {
		err = x.fake(xproto.KeyRelease, byte(kc), 0, 0)
	}
	for i := len(down) - 1; i >= 0; i-- {
		if e := x.fake(xproto.KeyRelease, byte(down[i]), 0, 0); err == nil {
			err = e
		}
	}
	return x.alive(err)
}

// keycode finds the key of ks: shifted says it is in the key's second column. A keysym
// no key has is bound to a spare keycode (spare: unbind it after).
func (x *x11) keycode(ks xproto.Keysym) (kc xproto.Keycode, shifted, spare bool, err error) {
	for i, s := range x.keysyms {
		col := i % x.perKey
		if s == ks && col < 2 {
			return x.minKey + xproto.Keycode(i/x.perKey), col == 1, false, nil
		}
	}
	for k := 0; k < len(x.keysyms)/x.perKey; k++ {
		row := x.keysyms[k*x.perKey : (k+1)*x.perKey]
		if allZero(row) {
			kc = x.minKey + xproto.Keycode(k)
			syms := make([]xproto.Keysym, x.perKey)
			syms[0], syms[1] = ks, ks
			if err := xproto.ChangeKeyboardMappingChecked(x.conn, 1, kc, byte(x.perKey), syms).Check(); err != nil {
				return 0, false, false, x.alive(err)
			}
			copy(row, syms)
			time.Sleep(10 * time.Millisecond) // clients read the MappingNotify first
			return kc, false, true, nil
		}
	}
	return 0, false, false, fmt.Errorf("no key of the X keyboard types %#x, and no keycode is free to bind it", uint32(ks))
}

func (x *x11) unbind(kc xproto.Keycode) {
	time.Sleep(20 * time.Millisecond)
	syms := make([]xproto.Keysym, x.perKey)
	_ = xproto.ChangeKeyboardMappingChecked(x.conn, 1, kc, byte(x.perKey), syms).Check()
	k := int(kc - x.minKey)
	copy(x.keysyms[k*x.perKey:(k+1)*x.perKey], syms)
}

func allZero(s []xproto.Keysym) bool {
	for _, v := range s {
		if v != 0 {
			return false
		}
	}
	return true
}

// runeKeysym is the keysym of a character: Latin-1 is its own, control characters have
// their keys, the rest is Unicode's keysym range.
func runeKeysym(r rune) xproto.Keysym {
	switch r {
	case '\n', '\r':
		return namedKeysym["enter"]
	case '\t':
		return namedKeysym["tab"]
	case '\b':
		return namedKeysym["backspace"]
	}
	if (r >= 0x20 && r <= 0x7e) || (r >= 0xa0 && r <= 0xff) {
		return xproto.Keysym(r)
	}
	return xproto.Keysym(0x01000000 | uint32(r))
}

var namedKeysym = map[string]xproto.Keysym{
	"enter": 0xff0d, "return": 0xff0d, "tab": 0xff09, "escape": 0xff1b, "esc": 0xff1b, "backspace": 0xff08,
	"delete": 0xffff, "space": 0x20, "up": 0xff52, "down": 0xff54, "left": 0xff51, "right": 0xff53,
	"home": 0xff50, "end": 0xff57, "page_up": 0xff55, "page_down": 0xff56, "insert": 0xff63,
	"f1": 0xffbe, "f2": 0xffbf, "f3": 0xffc0, "f4": 0xffc1, "f5": 0xffc2, "f6": 0xffc3,
	"f7": 0xffc4, "f8": 0xffc5, "f9": 0xffc6, "f10": 0xffc7, "f11": 0xffc8, "f12": 0xffc9,
}

var modifierKeysym = map[string]xproto.Keysym{
	"ctrl": 0xffe3, "control": 0xffe3, "shift": 0xffe1, "alt": 0xffe9, "meta": 0xffe9, "super": 0xffeb, "cmd": 0xffeb,
}

// Elements asks the accessibility tree (AT-SPI over D-Bus); where none answers, the
// visible top-level windows stand for it.
func (x *x11) Elements(ctx context.Context, q Query) ([]Element, bool, error) {
	if x.a11y == nil {
		a, err := openATSPI()
		if err == nil {
			x.a11y = a
		}
	}
	if x.a11y != nil {
		els, err := x.a11y.elements(ctx, q)
		if err == nil {
			return els, true, nil
		}
		if !errors.Is(err, errNoTree) {
			return nil, false, err
		}
	}
	els, err := x.windows(q)
	return els, false, err
}

// windows are the viewable children of the root, with their names.
func (x *x11) windows(q Query) ([]Element, error) {
	tree, err := xproto.QueryTree(x.conn, x.root).Reply()
	if err != nil {
		return nil, x.alive(err)
	}
	var out []Element
	for _, w := range tree.Children {
		attr, err := xproto.GetWindowAttributes(x.conn, w).Reply()
		if err != nil || attr.MapState != xproto.MapStateViewable || attr.OverrideRedirect {
			continue
		}
		g, err := xproto.GetGeometry(x.conn, xproto.Drawable(w)).Reply()
		if err != nil || g.Width < 2 || g.Height < 2 {
			continue
		}
		name := x.windowName(w)
		if q.App != "" && !strings.Contains(strings.ToLower(name), strings.ToLower(q.App)) {
			continue
		}
		if q.Role != "" && !strings.EqualFold(q.Role, "window") {
			continue
		}
		out = append(out, Element{App: name, Role: "window", Name: name, X: int(g.X), Y: int(g.Y), W: int(g.Width), H: int(g.Height),
			Clickable: true, Visible: true})
	}
	return out, nil
}

// windowName is a window's _NET_WM_NAME or WM_NAME, looked for in it and its children
// (a window manager's frame holds the client).
func (x *x11) windowName(w xproto.Window) string {
	for _, prop := range []string{"_NET_WM_NAME", "WM_NAME"} {
		atom, err := xproto.InternAtom(x.conn, true, uint16(len(prop)), prop).Reply()
		if err != nil || atom.Atom == 0 {
			continue
		}
		p, err := xproto.GetProperty(x.conn, false, w, atom.Atom, xproto.GetPropertyTypeAny, 0, 256).Reply()
		if err == nil && len(p.Value) > 0 {
			return string(p.Value)
		}
	}
	tree, err := xproto.QueryTree(x.conn, w).Reply()
	if err == nil {
		for _, c := range tree.Children {
			if n := x.windowName(c); n != "" {
				return n
			}
		}
	}
	return ""
}
