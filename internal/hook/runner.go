package hook

import (
	"context"
	"fmt"
	"maps"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Runner holds the hooks of a session — those of the settings files and those
// registered with register_hook — and runs them. It is safe for concurrent use.
type Runner struct {
	base Base

	mu      sync.RWMutex
	config  map[string][]*spec
	session map[string][]*spec
	next    map[string]int // the last index given to a session hook, by event
}

// NewRunner makes a Runner of the hooks of the settings files (validated by config),
// for the session that base describes.
func NewRunner(cfg map[string][]config.HookMatcher, base Base) *Runner {
	r := &Runner{base: base, config: map[string][]*spec{}, session: map[string][]*spec{}, next: map[string]int{}}
	for event, matchers := range cfg {
		for _, m := range matchers {
			re, reErr := newMatcher(m.Matcher)
			for _, h := range m.Hooks {
				r.config[event] = append(r.config[event], &spec{
					source:    SourceConfig,
					event:     event,
					matcher:   m.Matcher,
					re:        re,
					reErr:     reErr,
					command:   h.Command,
					timeout:   seconds(h.Timeout),
					onFailure: h.OnFailure,
					claude:    m.Claude,
				})
			}
		}
	}
	return r
}

// seconds turns a configured timeout into a duration; 0 or less is the default.
func seconds(n int) time.Duration {
	if n <= 0 {
		return DefaultTimeout
	}
	return time.Duration(n) * time.Second
}

// Has tells whether any hook, whatever its matcher, is set for event.
func (r *Runner) Has(event string) bool {
	if r == nil {
		return false
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	return len(r.config[event])+len(r.session[event]) > 0
}

// selected returns the hooks of event that run for toolName (or one of its aliases):
// those of the settings files, then the session's, each in order.
func (r *Runner) selected(event, toolName string, aliases []string) []*spec {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []*spec
	for _, list := range [][]*spec{r.config[event], r.session[event]} {
		for _, s := range list {
			if s.selects(event, toolName, aliases...) {
				out = append(out, s)
			}
		}
	}
	return out
}

// run is one run of a hook: the hook, and the stdin it reads.
type hookRun struct {
	s     *spec
	input []byte
	err   error // the stdin could not be made
}

// runs makes the runs of the selected hooks. A hook of a Claude Code settings file
// reads Claude's view of the call (its tool name and tool_input fields, Claude's mode
// names), once per view: a patch of three files is three Edit or Write calls to it.
func (r *Runner) runs(event string, hooks []*spec, sub *tool.HookSubject, fields map[string]any) []hookRun {
	var native []byte
	var nerr error
	var out []hookRun
	for _, s := range hooks {
		if !s.claude {
			if native == nil && nerr == nil {
				native, nerr = r.base.stdin(event, fields, false)
			}
			out = append(out, hookRun{s: s, input: native, err: nerr})
			continue
		}
		views := claudeViews(sub)
		if len(views) == 0 {
			in, err := r.base.stdin(event, fields, true)
			out = append(out, hookRun{s: s, input: in, err: err})
			continue
		}
		for _, v := range views {
			if !s.selects(event, v.Name) && !s.selects(event, sub.Name) {
				continue // a patch's Write does not concern an Edit-only hook
			}
			f := maps.Clone(fields)
			f["tool_name"], f["tool_input"] = v.Name, v.Input
			if resp, ok := fields["tool_response"]; ok {
				f["tool_response"] = claudeResponse(v, resp)
			}
			in, err := r.base.stdin(event, f, true)
			out = append(out, hookRun{s: s, input: in, err: err})
		}
	}
	return out
}

// Run runs, one after the other, the hooks of event whose matcher selects toolName,
// each with a JSON object on stdin: session_id, cwd, hook_event_name,
// permission_mode, transcript_path and fields (tool_name, tool_input, tool_response,
// tool_use_id, prompt, …). The first hook that blocks stops the others. A cancelled
// ctx stops the running hook and blocks, so that nothing goes ahead unchecked.
func (r *Runner) Run(ctx context.Context, event, toolName string, fields map[string]any) Outcome {
	var o Outcome
	if r == nil {
		return o
	}
	sub, _ := fields[tool.HookSubjectKey].(*tool.HookSubject)
	if sub != nil {
		fields = maps.Clone(fields)
		delete(fields, tool.HookSubjectKey)
	}
	var aliases []string
	if sub != nil {
		aliases = sub.ClaudeNames
	}
	hooks := r.selected(event, toolName, aliases)
	if len(hooks) == 0 {
		return o
	}
	env := r.base.env(event)
	for _, rn := range r.runs(event, hooks, sub, fields) {
		s, input, err := rn.s, rn.input, rn.err
		var v verdict
		switch {
		case ctx.Err() != nil:
			v = verdict{block: true, reason: fmt.Sprintf("The %s did not run: the call was cancelled.", s.label())}
		case err != nil:
			v = s.failed(fmt.Sprintf("The %s did not run: its input could not be written as JSON (%v).", s.label(), err))
		case s.reErr != nil:
			v = s.failed(fmt.Sprintf("The %s did not run: %v.", s.label(), s.reErr))
		default:
			x := execute(ctx, newCommand(s.source, s.command, r.base.Cwd, env, r.base.Judge), input, s.timeout)
			v = judge(event, s, x)
			for _, b := range x.blocked {
				o.Warnings = append(o.Warnings, fmt.Sprintf("The %s tried to run %q, which the deny rule %s forbids; it was refused.", s.label(), b.Command, b.Rule))
			}
		}
		o.add(v)
		if o.Block {
			break
		}
	}
	return o
}
