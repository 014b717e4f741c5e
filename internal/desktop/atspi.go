//go:build !darwin

package desktop

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/godbus/dbus/v5"
)

// errNoTree says no accessibility service answers.
var errNoTree = errors.New("no accessibility tree answers")

// atspi is a connection to the accessibility bus (AT-SPI), found through the session
// bus's org.a11y.Bus.
type atspi struct{ conn *dbus.Conn }

func openATSPI() (*atspi, error) {
	sess, err := dbus.ConnectSessionBus()
	if err != nil {
		return nil, fmt.Errorf("%w: no D-Bus session bus (%v)", errNoTree, err)
	}
	var addr string
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
	defer cancel()
	err = sess.Object("org.a11y.Bus", "/org/a11y/bus").CallWithContext(ctx, "org.a11y.Bus.GetAddress", 0).Store(&addr)
	sess.Close()
	if err != nil {
		return nil, fmt.Errorf("%w: the session bus has no accessibility bus (%v)", errNoTree, err)
	}
	conn, err := dbus.Connect(addr)
	if err != nil {
		return nil, fmt.Errorf("%w: the accessibility bus at %s does not answer (%v)", errNoTree, addr, err)
	}
	return &atspi{conn: conn}, nil
}

func (a *atspi) close() { a.conn.Close() }

type ref struct {
	Name string
	Path dbus.ObjectPath
}

// The AT-SPI states gantry reads (AtspiStateType).
const (
	stateEnabled   = 8
	stateFocusable = 11
	stateFocused   = 12
	stateSensitive = 24
	stateShowing   = 25
	stateVisible   = 30
)

const defaultLimit = 3000

// elements walks the tree: every application (or the one q.App names), depth first,
// the children of a node that is not showing left out.
func (a *atspi) elements(ctx context.Context, q Query) ([]Element, error) {
	root := ref{"org.a11y.atspi.Registry", "/org/a11y/atspi/accessible/root"}
	apps, err := a.children(ctx, root)
	if err != nil {
		return nil, fmt.Errorf("%w: %v", errNoTree, err)
	}
	limit := q.Limit
	if limit <= 0 {
		limit = defaultLimit
	}
	w := walker{a: a, q: q, left: limit}
	for _, app := range apps {
		name, _ := a.str(ctx, app, "Name")
		if q.App != "" && !strings.Contains(strings.ToLower(name), strings.ToLower(q.App)) {
			continue
		}
		w.app = name
		if err := w.walk(ctx, app, 0); err != nil {
			return w.out, err
		}
	}
	return w.out, nil
}

type walker struct {
	a    *atspi
	q    Query
	app  string
	left int
	out  []Element
}

func (w *walker) walk(ctx context.Context, n ref, depth int) error {
	if w.left <= 0 || ctx.Err() != nil {
		return ctx.Err()
	}
	w.left--
	kids, err := w.a.children(ctx, n)
	if err != nil {
		return nil // an application that went away, or does not answer: skipped
	}
	for _, k := range kids {
		if w.left <= 0 {
			break
		}
		el, showing := w.a.element(ctx, k)
		el.App, el.Depth = w.app, depth+1
		if !showing {
			continue
		}
		if w.q.Role == "" || strings.EqualFold(el.Role, w.q.Role) {
			w.out = append(w.out, el)
		}
		if w.q.Depth <= 0 || depth+1 < w.q.Depth {
			if err := w.walk(ctx, k, depth+1); err != nil {
				return err
			}
		} else {
			w.left--
		}
	}
	return nil
}

func (a *atspi) obj(n ref) dbus.BusObject { return a.conn.Object(n.Name, n.Path) }

func (a *atspi) call(ctx context.Context, n ref, method string, args ...any) *dbus.Call {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	return a.obj(n).CallWithContext(ctx, method, 0, args...)
}

func (a *atspi) children(ctx context.Context, n ref) ([]ref, error) {
	var kids []ref
	err := a.call(ctx, n, "org.a11y.atspi.Accessible.GetChildren").Store(&kids)
	return kids, err
}

func (a *atspi) str(ctx context.Context, n ref, prop string) (string, error) {
	var v dbus.Variant
	if err := a.call(ctx, n, "org.freedesktop.DBus.Properties.Get", "org.a11y.atspi.Accessible", prop).Store(&v); err != nil {
		return "", err
	}
	s, _ := v.Value().(string)
	return s, nil
}

// element reads one node: role, name, description, states, extents, actions. showing
// is false for a node not on the screen (its subtree is left out).
func (a *atspi) element(ctx context.Context, n ref) (Element, bool) {
	var el Element
	var role string
	if err := a.call(ctx, n, "org.a11y.atspi.Accessible.GetRoleName").Store(&role); err != nil {
		return el, false
	}
	el.Role = role
	el.Name, _ = a.str(ctx, n, "Name")
	el.Description, _ = a.str(ctx, n, "Description")
	var states []uint32
	if err := a.call(ctx, n, "org.a11y.atspi.Accessible.GetState").Store(&states); err != nil {
		return el, false
	}
	has := func(bit int) bool { return len(states) > bit/32 && states[bit/32]&(1<<(bit%32)) != 0 }
	showing := has(stateShowing) && has(stateVisible)
	el.Visible, el.Focused = showing, has(stateFocused)
	var ifaces []string
	_ = a.call(ctx, n, "org.a11y.atspi.Accessible.GetInterfaces").Store(&ifaces)
	if slices.Contains(ifaces, "org.a11y.atspi.Component") {
		var r struct{ X, Y, W, H int32 } // (iiii), in screen coordinates
		if err := a.call(ctx, n, "org.a11y.atspi.Component.GetExtents", uint32(0)).Store(&r); err == nil {
			el.X, el.Y, el.W, el.H = int(r.X), int(r.Y), int(r.W), int(r.H)
		}
	}
	actions := 0
	if slices.Contains(ifaces, "org.a11y.atspi.Action") {
		var v dbus.Variant
		if err := a.call(ctx, n, "org.freedesktop.DBus.Properties.Get", "org.a11y.atspi.Action", "NActions").Store(&v); err == nil {
			if n, ok := v.Value().(int32); ok {
				actions = int(n)
			}
		}
	}
	enabled := has(stateEnabled) || has(stateSensitive)
	el.Clickable = enabled && (actions > 0 || has(stateFocusable))
	return el, showing
}
