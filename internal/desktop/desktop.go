// Package desktop sees and drives a graphical desktop for the computer tool: a
// Backend takes screenshots and sends input (X11 through XTEST on Linux; macOS through
// its own command-line tools), and Elements come from the accessibility tree (AT-SPI
// on Linux, System Events on macOS), with Set-of-Mark boxes drawn from them.
package desktop

import (
	"context"
	"errors"
	"image"
	"slices"
	"strings"
	"time"
)

// Button is a mouse button.
type Button int

// The buttons.
const (
	Left Button = iota + 1
	Middle
	Right
)

// Backend is one display.
type Backend interface {
	// Name says which display this is (":99", "macOS").
	Name() string
	// Size is the screen's size in pixels.
	Size() (w, h int)
	// Screenshot captures the whole screen.
	Screenshot(ctx context.Context) (*image.RGBA, error)
	// Move puts the pointer at x, y.
	Move(ctx context.Context, x, y int) error
	// Click presses and releases button at x, y, count times.
	Click(ctx context.Context, x, y int, b Button, count int) error
	// Drag presses the left button at one point, moves to the other over d, releases.
	Drag(ctx context.Context, x0, y0, x1, y1 int, d time.Duration) error
	// Scroll turns the wheel at x, y: dy > 0 down, dx > 0 right, in notches.
	Scroll(ctx context.Context, x, y, dx, dy int) error
	// Type types text, waiting delay between characters.
	Type(ctx context.Context, text string, delay time.Duration) error
	// Key presses a combination such as "ctrl+a", "enter", "shift+tab".
	Key(ctx context.Context, combo string) error
	// Elements lists the accessibility tree (see Query); ok is false where there is no
	// accessibility service to ask (then the list is the top-level windows).
	Elements(ctx context.Context, q Query) (els []Element, fromTree bool, err error)
	// Close releases the display.
	Close() error
}

// Element is a node of the accessibility tree (or a top-level window, where no tree
// answers).
type Element struct {
	App         string
	Role        string
	Name        string
	Description string
	// X, Y, W, H are its extents on the screen, in screen pixels.
	X, Y, W, H int
	Depth      int
	// Clickable: it has an action, or can take the focus.
	Clickable bool
	Focused   bool
	Visible   bool // shown on the screen now
}

// Center is the point a click on the element goes to.
func (e Element) Center() (int, int) { return e.X + e.W/2, e.Y + e.H/2 }

// Query narrows the tree: one application (a substring of its name), a depth, a role.
type Query struct {
	App   string
	Depth int // 0: no bound
	Role  string
	// Limit bounds the nodes visited (0: a default).
	Limit int
}

// ErrNoDisplay says no display is reachable.
var ErrNoDisplay = errors.New("no display is reachable")

// Keys are the key names Key understands besides single characters, as the tool's
// description lists them.
var Keys = []string{"enter", "return", "tab", "escape", "esc", "backspace", "delete", "space", "up", "down", "left", "right",
	"home", "end", "page_up", "page_down", "insert", "f1", "f2", "f3", "f4", "f5", "f6", "f7", "f8", "f9", "f10", "f11", "f12"}

// Modifiers are the modifier names of a combination.
var Modifiers = []string{"ctrl", "control", "shift", "alt", "super", "meta", "cmd"}

// SplitCombo splits "ctrl+shift+a" into its modifiers and its key, lower-cased (but a
// single character key keeps its case).
func SplitCombo(combo string) (mods []string, key string, err error) {
	parts := strings.Split(strings.TrimSpace(combo), "+")
	if len(parts) > 2 && parts[len(parts)-1] == "" && parts[len(parts)-2] == "" { // "ctrl++"
		parts = append(parts[:len(parts)-2], "+")
	}
	for i, p := range parts {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, "", errors.New("an empty part")
		}
		if i < len(parts)-1 {
			m := strings.ToLower(p)
			if !slices.Contains(Modifiers, m) {
				return nil, "", errors.New(p + " is not a modifier (ctrl, shift, alt, super)")
			}
			mods = append(mods, m)
			continue
		}
		if len([]rune(p)) == 1 {
			key = p
		} else {
			key = strings.ToLower(p)
			if !slices.Contains(Keys, key) && !slices.Contains(Modifiers, key) {
				return nil, "", errors.New(p + " is not a key gantry knows (" + strings.Join(Keys, ", ") + ", or one character)")
			}
		}
	}
	return mods, key, nil
}
