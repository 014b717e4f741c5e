// Starting a session: the adapters there are, launch and attach.

package debugtool

import (
	"context"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

func (d *Debugger) adapters(ctx context.Context, cwd string) string {
	var b strings.Builder
	for i := range d.o.Specs {
		s := &d.o.Specs[i]
		u := dap.Check(ctx, s, cwd, d.python(cwd), d.o.Policy)
		if u.Why != "" {
			fmt.Fprintf(&b, "%s: not usable — %s.\n", s.ID, u.Why)
			continue
		}
		fmt.Fprintf(&b, "%s: usable (%s)", s.ID, strings.Join(u.Command, " "))
		if u.Root != "" {
			fmt.Fprintf(&b, "; project at %s", rel(cwd, u.Root))
		} else if len(s.Markers) > 0 {
			fmt.Fprintf(&b, "; no %s at or above here (a program named to launch still runs)", strings.Join(s.Markers, ", "))
		}
		b.WriteString(".\n")
	}
	return strings.TrimSpace(b.String())
}

func (d *Debugger) python(cwd string) string {
	if d.o.Python != "" {
		return d.o.Python
	}
	return dap.Python(cwd)
}

func (d *Debugger) spec(id string) *dap.Spec {
	for i := range d.o.Specs {
		if d.o.Specs[i].ID == id {
			return &d.o.Specs[i]
		}
	}
	return nil
}

func (d *Debugger) ids() string {
	ids := make([]string, len(d.o.Specs))
	for i, s := range d.o.Specs {
		ids[i] = s.ID
	}
	return strings.Join(ids, ", ")
}

func (d *Debugger) start(ctx context.Context, env tool.Env, a args) tool.Result {
	d.mu.Lock()
	if s := d.sess; s != nil {
		if !s.Snapshot().Over() {
			d.mu.Unlock()
			return tool.Fail(fmt.Sprintf("A %s is running; terminate it before you %s another.", describeSession(env, s), a.Operation))
		}
		d.takeLocked()
		go s.Close()
	}
	d.expired = ""
	bps := make(map[string][]int, len(d.breakpoints))
	for f, ls := range d.breakpoints {
		bps[f] = slices.Clone(ls)
	}
	d.mu.Unlock()

	var spec *dap.Spec
	if a.Adapter != "" {
		if spec = d.spec(a.Adapter); spec == nil {
			return tool.Fail(fmt.Sprintf("debug knows no adapter %q; it knows %s.", a.Adapter, d.ids()))
		}
	}
	program := ""
	if a.Operation == "launch" {
		program = env.Abs(a.Program)
		if _, err := os.Stat(program); err != nil {
			return tool.Fail(fmt.Sprintf("%s does not exist.", a.Program))
		}
		if spec == nil {
			if spec = dap.ForProgram(d.o.Specs, program); spec == nil {
				return tool.Fail(fmt.Sprintf("No adapter debugs %s: name one in \"adapter\" (%s), or give a Go package folder, a .go or .py file, or a built executable.", a.Program, d.ids()))
			}
		}
	} else if spec == nil {
		var found []*dap.Spec
		for i := range d.o.Specs {
			s := &d.o.Specs[i]
			if s.Attach != nil && dap.Check(ctx, s, env.Cwd, d.python(env.Cwd), d.o.Policy).Root != "" {
				found = append(found, s)
			}
		}
		if len(found) != 1 {
			return tool.Fail(fmt.Sprintf("Say which adapter serves port %d in \"adapter\" (delve for dlv --headless, debugpy for python -m debugpy --listen, lldb for a gdb-remote server).", a.Port))
		}
		spec = found[0]
	}
	u := dap.Check(ctx, spec, env.Cwd, d.python(env.Cwd), d.o.Policy)
	if u.Why != "" && !(a.Operation == "attach" && spec.Direct) {
		return tool.Fail(fmt.Sprintf("The %s adapter cannot start: %s.", spec.ID, u.Why))
	}
	o := dap.Options{Dir: env.Cwd, Policy: d.o.Policy, Start: d.o.Start}
	var s *dap.Session
	var err error
	if a.Operation == "launch" {
		s, err = dap.Launch(ctx, u, program, a.Args, bps, o)
	} else {
		s, err = dap.Attach(ctx, u, a.Port, bps, o)
	}
	if err != nil {
		if ctx.Err() != nil {
			return tool.Fail("debug " + a.Operation + " was cancelled; nothing was left running.")
		}
		return tool.Fail(fmt.Sprintf("debug %s failed: %s.", a.Operation, strings.TrimSuffix(err.Error(), ".")))
	}
	d.mu.Lock()
	if d.sess != nil { // another call started one meanwhile (calls of one conversation do not overlap)
		d.mu.Unlock()
		s.Close()
		return tool.Fail("Another debug session started meanwhile; terminate it first.")
	}
	d.sess, d.cwd = s, env.Cwd
	d.timer = time.AfterFunc(d.o.TTL, func() { d.expire(s) })
	d.mu.Unlock()
	sn, err := s.Wait(ctx, 0, d.o.Wait)
	if err != nil {
		return tool.Fail("debug " + a.Operation + " was cancelled while the program ran; the session is still there (status, pause or terminate).")
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	verb := fmt.Sprintf("Launched %s under %s", rel(env.Cwd, program), spec.ID)
	if a.Operation == "attach" {
		verb = fmt.Sprintf("Attached to port %d with %s", a.Port, spec.ID)
	}
	if len(bps) > 0 {
		verb += " with breakpoints at " + breakpointList(env.Cwd, bps)
	}
	return d.describe(rctx, env, s, sn, verb)
}

func breakpointList(cwd string, bps map[string][]int) string {
	var parts []string
	for _, f := range slices.Sorted(maps.Keys(bps)) {
		parts = append(parts, rel(cwd, f)+":"+joinInts(bps[f]))
	}
	return strings.Join(parts, ", ")
}
