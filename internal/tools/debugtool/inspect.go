// Reading a stopped program: threads, stack, scopes, variables, expressions and output.

package debugtool

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

func (d *Debugger) threads(ctx context.Context, _ tool.Env, s *dap.Session, _ args) tool.Result {
	ts, err := s.Threads(ctx)
	if err != nil {
		return d.fail(s, "threads", err)
	}
	sn := s.Snapshot()
	var b strings.Builder
	for i, t := range ts {
		if i == maxThreads {
			fmt.Fprintf(&b, "… %d more threads\n", len(ts)-maxThreads)
			break
		}
		mark := ""
		if sn.State == dap.Stopped && t.Id == sn.ThreadID {
			mark = " (stopped here)"
		}
		fmt.Fprintf(&b, "%d %s%s\n", t.Id, tool.OneLine(t.Name, 120), mark)
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d threads", len(ts))}}
}

func (d *Debugger) stack(ctx context.Context, env tool.Env, s *dap.Session, a args) tool.Result {
	sn := s.Snapshot()
	if sn.State != dap.Stopped {
		return tool.Fail(fmt.Sprintf("The program is %s; stack needs it stopped (pause it first).", sn.State))
	}
	frames, total, err := s.Stack(ctx, d.thread(s, a.ThreadID), maxFrames)
	if err != nil {
		return d.fail(s, "the stack", err)
	}
	var b strings.Builder
	for i, f := range frames {
		if i == maxFrames {
			break
		}
		path := ""
		if f.Source != nil {
			path = f.Source.Path
		}
		where := "(no source)"
		if path != "" {
			where = fmt.Sprintf("%s:%d", rel(env.Cwd, path), f.Line)
		}
		fmt.Fprintf(&b, "#%d %s %s [frame_id %d]\n", i, f.Name, where, f.Id)
	}
	if total > len(frames) || len(frames) > maxFrames {
		fmt.Fprintf(&b, "… %d frames in all; the first %d are shown\n", max(total, len(frames)), min(len(frames), maxFrames))
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d frames", len(frames))}}
}

func (d *Debugger) scopes(ctx context.Context, _ tool.Env, s *dap.Session, a args) tool.Result {
	scopes, err := s.Scopes(ctx, a.FrameID)
	if err != nil {
		return d.fail(s, fmt.Sprintf("the scopes of frame %d", a.FrameID), err)
	}
	var b strings.Builder
	for _, sc := range scopes {
		extra := ""
		if sc.Expensive {
			extra = ", expensive"
		}
		fmt.Fprintf(&b, "%s [reference %d%s]\n", sc.Name, sc.VariablesReference, extra)
	}
	if b.Len() == 0 {
		return tool.Result{Text: fmt.Sprintf("Frame %d has no scopes.", a.FrameID)}
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d scopes", len(scopes))}}
}

func (d *Debugger) variables(ctx context.Context, _ tool.Env, s *dap.Session, a args) tool.Result {
	vars, err := s.Variables(ctx, a.Reference, maxChildren+1)
	if err != nil {
		return d.fail(s, fmt.Sprintf("the variables of reference %d", a.Reference), err)
	}
	var b strings.Builder
	for i, v := range vars {
		if i == maxChildren {
			fmt.Fprintf(&b, "… more children; the first %d are shown\n", maxChildren)
			break
		}
		b.WriteString(variableLine(v.Name, v.Value, v.Type, v.VariablesReference))
	}
	if b.Len() == 0 {
		return tool.Result{Text: fmt.Sprintf("Reference %d has no children.", a.Reference)}
	}
	return tool.Result{Text: strings.TrimSpace(b.String()), Display: tool.Display{Note: fmt.Sprintf("%d variables", min(len(vars), maxChildren))}}
}

func variableLine(name, value, typ string, ref int) string {
	line := name + " = " + capValue(value)
	var extra []string
	if typ != "" {
		extra = append(extra, tool.OneLine(typ, 120))
	}
	if ref > 0 {
		extra = append(extra, fmt.Sprintf("reference %d", ref))
	}
	if len(extra) > 0 {
		line += " (" + strings.Join(extra, ", ") + ")"
	}
	return line + "\n"
}

// capValue is a value on one line, at most maxValue characters.
func capValue(v string) string {
	v = strings.ReplaceAll(strings.ReplaceAll(v, "\r", `\r`), "\n", `\n`)
	if r := []rune(v); len(r) > maxValue {
		return string(r[:maxValue]) + fmt.Sprintf("… (%d characters)", len(r))
	}
	return v
}

func (d *Debugger) evaluate(ctx context.Context, _ tool.Env, s *dap.Session, a args) tool.Result {
	frame := a.FrameID
	if frame == 0 {
		if sn := s.Snapshot(); sn.State == dap.Stopped {
			if frames, _, err := s.Stack(ctx, d.thread(s, 0), 1); err == nil && len(frames) > 0 {
				frame = frames[0].Id
			}
		}
	}
	r, err := s.Evaluate(ctx, a.Expression, frame)
	if err != nil {
		return d.fail(s, "the expression", err)
	}
	text := strings.TrimSuffix(variableLine(a.Expression, r.Result, r.Type, r.VariablesReference), "\n")
	return tool.Result{Text: text, Display: tool.Display{Note: "= " + tool.OneLine(capValue(r.Result), 120)}}
}

func (d *Debugger) output(_ context.Context, _ tool.Env, s *dap.Session, _ args) tool.Result {
	out, cut := s.Output()
	if out == "" {
		return tool.Result{Text: "No output since the last call." + messagesSection(s), Display: tool.Display{Note: "no output"}}
	}
	note := fmt.Sprintf("%d bytes", len(out))
	if cut > 0 {
		note += fmt.Sprintf(" (%d cut)", cut)
	}
	// The program's output, like a command's: the loop bounds it (tool.Fit), saves it
	// whole when it cuts it, and the model reads a command's short preview.
	return tool.Result{Text: out + messagesSection(s), Display: tool.Display{Note: note}, Preview: tool.ShellPreview}
}

// rel is p relative to cwd when under it.
func rel(cwd, p string) string {
	if p == "" {
		return p
	}
	if r, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(r, "..") {
		if r == "." {
			return "."
		}
		return filepath.ToSlash(r)
	}
	return p
}
