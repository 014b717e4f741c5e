//go:build darwin

package desktop

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"image"
	"image/draw"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
)

// Open returns the macOS desktop: screenshots through screencapture, input through
// CoreGraphics events posted from JavaScript for Automation (osascript), the
// accessibility tree through System Events. gantry needs the Screen Recording and
// Accessibility permissions for the terminal it runs in. Not tested by gantry's suite
// (it runs on Linux); built by it with GOOS=darwin.
func Open(string) (Backend, error) {
	b := &mac{}
	img, err := b.Screenshot(context.Background())
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrNoDisplay, err)
	}
	b.w, b.h = img.Bounds().Dx(), img.Bounds().Dy()
	return b, nil
}

type mac struct{ w, h int }

func (m *mac) Name() string     { return "macOS" }
func (m *mac) Size() (int, int) { return m.w, m.h }
func (m *mac) Close() error     { return nil }

func (m *mac) Screenshot(ctx context.Context) (*image.RGBA, error) {
	dir, err := os.MkdirTemp("", "gantry-shot-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	p := filepath.Join(dir, "s.png")
	if out, err := combined(ctx, "screencapture", "-x", "-t", "png", p); err != nil {
		return nil, fmt.Errorf("screencapture: %v: %s", err, bytes.TrimSpace(out))
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	src, err := png.Decode(f)
	if err != nil {
		return nil, err
	}
	img := image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Bounds(), src, src.Bounds().Min, draw.Src)
	return img, nil
}

// jxa runs a JavaScript for Automation script with its arguments (argv) and returns
// what it printed.
func jxa(ctx context.Context, script string, args ...string) (string, error) {
	out, err := combined(ctx, "osascript", append([]string{"-l", "JavaScript", "-e", script}, args...)...)
	if err != nil {
		return "", fmt.Errorf("osascript: %v: %s", err, bytes.TrimSpace(out))
	}
	return strings.TrimSpace(string(out)), nil
}

const mouseJS = `ObjC.import('CoreGraphics');
function run(argv) {
  const kind = argv[0], x = +argv[1], y = +argv[2], n = +(argv[3] || 1), btn = argv[4] || 'left';
  const p = $.CGPointMake(x, y);
  const down = {left: $.kCGEventLeftMouseDown, right: $.kCGEventRightMouseDown}[btn];
  const up = {left: $.kCGEventLeftMouseUp, right: $.kCGEventRightMouseUp}[btn];
  const b = btn === 'right' ? $.kCGMouseButtonRight : $.kCGMouseButtonLeft;
  if (kind === 'move') { $.CGEventPost($.kCGHIDEventTap, $.CGEventCreateMouseEvent(null, $.kCGEventMouseMoved, p, b)); return; }
  if (kind === 'scroll') { $.CGEventPost($.kCGHIDEventTap, $.CGEventCreateScrollWheelEvent(null, $.kCGScrollEventUnitLine, 2, -(+argv[4]), -(+argv[3]))); return; }
  for (let i = 1; i <= n; i++) {
    const d = $.CGEventCreateMouseEvent(null, down, p, b); $.CGEventSetIntegerValueField(d, $.kCGMouseEventClickState, i);
    const u = $.CGEventCreateMouseEvent(null, up, p, b); $.CGEventSetIntegerValueField(u, $.kCGMouseEventClickState, i);
    $.CGEventPost($.kCGHIDEventTap, d); $.CGEventPost($.kCGHIDEventTap, u);
  }
}`

const dragJS = `ObjC.import('CoreGraphics');
function run(argv) {
  const [x0, y0, x1, y1, steps] = argv.map(Number);
  const post = (t, x, y) => $.CGEventPost($.kCGHIDEventTap, $.CGEventCreateMouseEvent(null, t, $.CGPointMake(x, y), $.kCGMouseButtonLeft));
  post($.kCGEventLeftMouseDown, x0, y0);
  for (let i = 1; i <= steps; i++) { post($.kCGEventLeftMouseDragged, x0 + (x1 - x0) * i / steps, y0 + (y1 - y0) * i / steps); delay(0.015); }
  post($.kCGEventLeftMouseUp, x1, y1);
}`

func (m *mac) Move(ctx context.Context, x, y int) error {
	_, err := jxa(ctx, mouseJS, "move", fmt.Sprint(x), fmt.Sprint(y))
	return err
}

func (m *mac) Click(ctx context.Context, x, y int, b Button, count int) error {
	btn := "left"
	if b == Right {
		btn = "right"
	}
	_, err := jxa(ctx, mouseJS, "click", fmt.Sprint(x), fmt.Sprint(y), fmt.Sprint(count), btn)
	return err
}

func (m *mac) Drag(ctx context.Context, x0, y0, x1, y1 int, d time.Duration) error {
	steps := max(int(d/(15*time.Millisecond)), 8)
	_, err := jxa(ctx, dragJS, fmt.Sprint(x0), fmt.Sprint(y0), fmt.Sprint(x1), fmt.Sprint(y1), fmt.Sprint(steps))
	return err
}

func (m *mac) Scroll(ctx context.Context, x, y, dx, dy int) error {
	if err := m.Move(ctx, x, y); err != nil {
		return err
	}
	_, err := jxa(ctx, mouseJS, "scroll", fmt.Sprint(x), fmt.Sprint(y), fmt.Sprint(dx), fmt.Sprint(dy))
	return err
}

const typeJS = `function run(argv) { const se = Application('System Events'); for (const ch of argv[0]) { se.keystroke(ch); if (+argv[1] > 0) delay(+argv[1] / 1000); } }`

func (m *mac) Type(ctx context.Context, text string, delay time.Duration) error {
	_, err := jxa(ctx, typeJS, text, fmt.Sprint(delay.Milliseconds()))
	return err
}

// keyCodes are macOS's virtual key codes of the named keys.
var keyCodes = map[string]int{
	"enter": 36, "return": 36, "tab": 48, "space": 49, "backspace": 51, "escape": 53, "esc": 53, "delete": 117,
	"left": 123, "right": 124, "down": 125, "up": 126, "home": 115, "end": 119, "page_up": 116, "page_down": 121,
	"f1": 122, "f2": 120, "f3": 99, "f4": 118, "f5": 96, "f6": 97, "f7": 98, "f8": 100, "f9": 101, "f10": 109, "f11": 103, "f12": 111,
}

const keyJS = `function run(argv) {
  const se = Application('System Events');
  const using = JSON.parse(argv[2]);
  if (argv[0] === 'code') se.keyCode(+argv[1], {using}); else se.keystroke(argv[1], {using});
}`

func (m *mac) Key(ctx context.Context, combo string) error {
	mods, key, err := SplitCombo(combo)
	if err != nil {
		return fmt.Errorf("%q: %v", combo, err)
	}
	var using []string
	for _, md := range mods {
		using = append(using, map[string]string{"ctrl": "control down", "control": "control down", "shift": "shift down",
			"alt": "option down", "meta": "option down", "super": "command down", "cmd": "command down"}[md])
	}
	u, _ := json.Marshal(using)
	if code, ok := keyCodes[key]; ok {
		_, err = jxa(ctx, keyJS, "code", fmt.Sprint(code), string(u))
	} else {
		_, err = jxa(ctx, keyJS, "char", key, string(u))
	}
	return err
}

const treeJS = `function run(argv) {
  const se = Application('System Events'); const out = []; const app = argv[0].toLowerCase(); const maxDepth = +argv[1] || 8;
  function walk(el, appName, depth) {
    if (depth > maxDepth || out.length > 3000) return;
    let kids = []; try { kids = el.uiElements(); } catch (e) { return; }
    for (const k of kids) {
      let p = {}; try { p = k.properties(); } catch (e) { continue; }
      const pos = p.position || [0, 0], size = p.size || [0, 0];
      let actions = 0; try { actions = k.actions().length; } catch (e) {}
      out.push({app: appName, role: p.role || '', name: p.title || p.name || p.description || '', description: p.description || '',
        x: pos[0], y: pos[1], w: size[0], h: size[1], depth, clickable: actions > 0 || !!p.focused, focused: !!p.focused});
      walk(k, appName, depth + 1);
    }
  }
  for (const proc of se.processes.whose({visible: true})()) {
    const name = proc.name(); if (app && !name.toLowerCase().includes(app)) continue; walk(proc, name, 1);
  }
  return JSON.stringify(out);
}`

func (m *mac) Elements(ctx context.Context, q Query) ([]Element, bool, error) {
	out, err := jxa(ctx, treeJS, q.App, fmt.Sprint(q.Depth))
	if err != nil {
		return nil, false, err
	}
	var raw []struct {
		App, Role, Name, Description string
		X, Y, W, H                   float64
		Depth                        int
		Clickable, Focused           bool
	}
	if err := json.Unmarshal([]byte(out), &raw); err != nil {
		return nil, false, fmt.Errorf("reading System Events' tree: %v", err)
	}
	var els []Element
	for _, r := range raw {
		if q.Role != "" && !strings.EqualFold(r.Role, q.Role) {
			continue
		}
		els = append(els, Element{App: r.App, Role: r.Role, Name: r.Name, Description: r.Description,
			X: int(r.X), Y: int(r.Y), W: int(r.W), H: int(r.H), Depth: r.Depth, Clickable: r.Clickable, Focused: r.Focused, Visible: true})
	}
	return els, true, nil
}

// combined runs one of macOS's own programs (screencapture, osascript) through gantry's
// one door, outside any session's rules (it runs nothing the model wrote), and
// returns its output and errors together.
func combined(ctx context.Context, name string, args ...string) ([]byte, error) {
	p := (*contain.Policy)(nil).Process(contain.Spec{Argv: append([]string{name}, args...)})
	var out bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
	if err := p.Start(); err != nil {
		return nil, err
	}
	end := p.Wait(ctx, 0, time.Second, nil)
	if end.Cancelled {
		return out.Bytes(), ctx.Err()
	}
	return out.Bytes(), end.Err
}
