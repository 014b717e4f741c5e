package debugtool

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

func (d *Debugger) setBreakpoints(ctx context.Context, env tool.Env, a args) tool.Result {
	file := env.Abs(a.File)
	data, err := os.ReadFile(file)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return tool.Fail(fmt.Sprintf("%s does not exist.", a.File))
		}
		return tool.Fail(fmt.Sprintf("%s cannot be read: %v.", a.File, err))
	}
	n := strings.Count(string(data), "\n")
	if len(data) > 0 && data[len(data)-1] != '\n' {
		n++
	}
	lines := slices.Clone(a.Lines)
	slices.Sort(lines)
	lines = slices.Compact(lines)
	for _, l := range lines {
		if l > n {
			return tool.Fail(fmt.Sprintf("Line %d is past the end of %s, which has %d lines.", l, a.File, n))
		}
	}
	d.mu.Lock()
	if len(lines) == 0 {
		delete(d.breakpoints, file)
	} else {
		d.breakpoints[file] = lines
	}
	s := d.sess
	d.mu.Unlock()
	shown := rel(env.Cwd, file)
	if s == nil || s.Snapshot().Over() {
		if len(lines) == 0 {
			return tool.Result{Text: fmt.Sprintf("Cleared the breakpoints of %s.", shown), Display: tool.Display{Note: "cleared"}}
		}
		return tool.Result{Text: fmt.Sprintf("Breakpoints at %s:%s, placed when a program is launched.", shown, joinInts(lines)),
			Display: tool.Display{Note: fmt.Sprintf("%d set before launch", len(lines))}}
	}
	rctx, cancel := context.WithTimeout(ctx, requestTimeout)
	defer cancel()
	placed, err := s.SetBreakpoints(rctx, file, lines)
	if err != nil {
		return d.fail(s, "the breakpoints", err)
	}
	if len(lines) == 0 {
		return tool.Result{Text: fmt.Sprintf("Cleared the breakpoints of %s.", shown), Display: tool.Display{Note: "cleared"}}
	}
	var b strings.Builder
	verified := 0
	for i, bp := range placed {
		want := 0
		if i < len(lines) {
			want = lines[i]
		}
		switch {
		case bp.Verified && bp.Line != 0 && bp.Line != want:
			verified++
			fmt.Fprintf(&b, "%s:%d: placed at line %d\n", shown, want, bp.Line)
		case bp.Verified:
			verified++
			fmt.Fprintf(&b, "%s:%d: set\n", shown, want)
		default:
			msg := bp.Message
			if msg == "" {
				msg = "the adapter could not place it (no code on that line?)"
			}
			fmt.Fprintf(&b, "%s:%d: not verified — %s\n", shown, want, tool.OneLine(msg, 200))
		}
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d of %d verified", verified, len(lines))}}
}
