package hook

import (
	"context"
	"fmt"
	"maps"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Runner holds the hooks of a session — those of the settings files and those
// registered with register_hook — and runs them. It is safe for concurrent use.
type Runner struct {
	base Base
	bg   *background

	mu      sync.RWMutex
	config  map[string][]*spec
	session map[string][]*spec
	next    map[string]int // the last index given to a session hook, by event
}

// NewRunner makes a Runner of the hooks of the settings files (validated by config),
// for the session that base describes.
func NewRunner(cfg map[string][]config.HookMatcher, base Base) *Runner {
	return newRunner(cfg, base, newBackground())
}

func newRunner(cfg map[string][]config.HookMatcher, base Base, bg *background) *Runner {
	return &Runner{base: base, bg: bg, config: configSpecs(cfg), session: map[string][]*spec{}, next: map[string]int{}}
}

// SetConfig replaces the hooks of the settings files (a folder's, once it is
// trusted, are added to the user's); the session's hooks stay.
func (r *Runner) SetConfig(cfg map[string][]config.HookMatcher) {
	specs := configSpecs(cfg)
	r.mu.Lock()
	r.config = specs
	r.mu.Unlock()
}

// With is a Runner of the same session with the hooks of cfg only (a folder's
// SessionStart hooks, run once it is trusted).
func (r *Runner) With(cfg map[string][]config.HookMatcher) *Runner {
	return newRunner(cfg, r.base, r.bg)
}

// configSpecs are the hooks of the settings files, by event.
func configSpecs(cfg map[string][]config.HookMatcher) map[string][]*spec {
	out := map[string][]*spec{}
	for event, matchers := range cfg {
		for _, m := range matchers {
			re, reErr := newMatcher(m.Matcher)
			for _, h := range m.Hooks {
				kind, def := TypeCommand, DefaultTimeout
				if h.Type == TypePrompt {
					kind, def = TypePrompt, DefaultPromptTimeout
				}
				out[event] = append(out[event], &spec{
					source:     SourceConfig,
					event:      event,
					matcher:    m.Matcher,
					re:         re,
					reErr:      reErr,
					kind:       kind,
					command:    h.Command,
					prompt:     h.Prompt,
					timeout:    seconds(h.Timeout, def),
					ownTimeout: h.Timeout > 0,
					onFailure:  h.OnFailure,
					claude:     m.Claude,
					cond:       h.If,
					async:      h.Async || h.AsyncRewake,
					rewake:     h.AsyncRewake,
					rewakeMsg:  h.RewakeMessage,
					rewakeSum:  h.RewakeSummary,
					status:     h.StatusMessage,
					pluginRoot: h.PluginRoot,
				})
			}
		}
	}
	return out
}

// seconds turns a configured timeout into a duration; 0 or less is def.
func seconds(n int, def time.Duration) time.Duration {
	if n <= 0 {
		return def
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

// hookRun is one run of a hook: the hook, and the stdin it reads.
type hookRun struct {
	s     *spec
	input []byte
	err   error // the stdin could not be made
	// view is Claude's view of the call that a Claude Code hook read (nil: gantry's
	// own input): its updatedInput is in that view's field names.
	view *tool.ClaudeView
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
			if s.cond != nil {
				input, _ := fields["tool_input"].(map[string]any)
				if name := subjectName(sub); !s.cond.Matches(name, input) {
					continue
				}
			}
			in, err := r.base.stdin(event, fields, true)
			out = append(out, hookRun{s: s, input: in, err: err})
			continue
		}
		for i, v := range views {
			if !s.selects(event, v.Name, v.Formerly...) && !s.selects(event, sub.Name) {
				continue // a patch's Write does not concern an Edit-only hook
			}
			if s.cond != nil && !s.cond.Matches(v.Name, v.Input) {
				continue // its if: Bash(git commit:*) does not concern echo hi
			}
			f := maps.Clone(fields)
			f["tool_name"], f["tool_input"] = v.Name, v.Input
			if resp, ok := fields["tool_response"]; ok {
				f["tool_response"] = claudeResponse(v, resp)
			}
			in, err := r.base.stdin(event, f, true)
			out = append(out, hookRun{s: s, input: in, err: err, view: &views[i]})
		}
	}
	return out
}

// Run runs the hooks of event whose matcher selects toolName, all at once, each with
// the same JSON object on stdin: session_id, cwd, hook_event_name, permission_mode,
// transcript_path and fields (tool_name, tool_input, tool_response, tool_use_id,
// prompt, …). It returns once every one has ended. What they said is folded in their
// order (those of the settings files, then the session's): a block by any of them
// wins, the others still run; see Outcome for how the rest is joined. A cancelled ctx
// stops the running hooks and blocks, so that nothing goes ahead unchecked.
func (r *Runner) Run(ctx context.Context, event, toolName string, fields map[string]any) Outcome {
	var o Outcome
	if r == nil {
		return o
	}
	sub, _ := fields[tool.HookSubjectKey].(*tool.HookSubject)
	var aliases []string
	if sub != nil {
		fields = maps.Clone(fields)
		delete(fields, tool.HookSubjectKey)
		aliases = sub.ClaudeNames
	}
	hooks := r.selected(event, toolName, aliases)
	if len(hooks) == 0 {
		return o
	}
	env := r.base.env(event)
	runs := r.runs(event, hooks, sub, fields)
	runs = r.detach(event, runs, env)
	results := make([]result, len(runs))
	var wg sync.WaitGroup
	for i, rn := range runs {
		s := rn.s
		if event == SessionEnd {
			s = s.atSessionEnd()
		}
		wg.Go(func() { results[i] = r.runOne(ctx, event, i, s, rn.input, rn.err, env, false) })
	}
	wg.Wait()
	exported := map[string]string{}
	for i, res := range results {
		if res.verdict.input != nil {
			res.verdict.view = runs[i].view
		}
		o.add(res.verdict)
		o.Warnings = append(o.Warnings, res.warnings...)
		if res.envText == "" {
			continue
		}
		get := func(name string) string {
			if v, ok := exported[name]; ok {
				return v
			}
			return os.Getenv(name)
		}
		bad := parseEnv(res.envText, get, func(name, value string) {
			exported[name] = value
			o.Env = append(o.Env, name+"="+value)
		})
		if len(bad) > 0 {
			o.Warnings = append(o.Warnings, fmt.Sprintf("The %s wrote lines to CLAUDE_ENV_FILE that gantry does not take (%s): only NAME=value and export NAME=value are read, with quotes and $NAME but no command substitution or other shell.", runs[i].s.label(), lineNumbers(bad)))
		}
	}
	return o
}

// lineNumbers says which lines: "line 3", "lines 2, 5".
func lineNumbers(ns []int) string {
	s := make([]string, len(ns))
	for i, n := range ns {
		s[i] = strconv.Itoa(n)
	}
	if len(s) == 1 {
		return "line " + s[0]
	}
	return "lines " + strings.Join(s, ", ")
}

// result is what one hook of a Run said, the warnings of its running, and what it
// wrote to its CLAUDE_ENV_FILE.
type result struct {
	verdict  verdict
	warnings []string
	envText  string
}

// runOne runs hook s, the i-th of event, with input (or says why it could not:
// inputErr). A SessionStart command hook gets a CLAUDE_ENV_FILE when the session has a
// folder for them. An async hook (async: configured so, run in the background) and
// one that declares itself async decide nothing: what they say goes to later.
func (r *Runner) runOne(ctx context.Context, event string, i int, s *spec, input []byte, inputErr error, env []string, async bool) result {
	switch {
	case ctx.Err() != nil:
		return result{verdict: verdict{block: true, reason: fmt.Sprintf("The %s did not run: the call was cancelled.", s.label())}}
	case inputErr != nil:
		return result{verdict: s.failed(fmt.Sprintf("The %s did not run: its input could not be written as JSON (%v).", s.label(), inputErr))}
	case s.reErr != nil:
		return result{verdict: s.failed(fmt.Sprintf("The %s did not run: %v.", s.label(), s.reErr))}
	}
	if s.kind == TypePrompt {
		return result{verdict: r.ask(ctx, event, s, input)}
	}
	var res result
	var envPath string
	if event == SessionStart && r.base.EnvDir != "" {
		p, err := envFile(r.base.EnvDir, i)
		if err != nil {
			res.warnings = append(res.warnings, fmt.Sprintf("The %s runs without CLAUDE_ENV_FILE: %v.", s.label(), err))
		} else {
			envPath = p
			env = append(env[:len(env):len(env)], "CLAUDE_ENV_FILE="+p)
		}
	}
	ended := func(x execution) { r.later(event, s, x) }
	x := execute(ctx, newCommand(s.source, s.command, r.base.Cwd, s.environ(env), r.base.Policy), input, s.timeout, r.detacher(ended))
	switch {
	case x.declared:
	case async:
		ended(x)
	default:
		res.verdict = judge(event, s, x)
	}
	for _, b := range x.blocked {
		res.warnings = append(res.warnings, fmt.Sprintf("The %s tried to run %q, which the deny rule %s forbids; it was refused.", s.label(), b.Command, b.Rule))
	}
	if envPath != "" {
		text, err := readEnvFile(envPath)
		if err != nil {
			res.warnings = append(res.warnings, fmt.Sprintf("The CLAUDE_ENV_FILE of the %s could not be read: %v.", s.label(), err))
		}
		res.envText = text
	}
	return res
}
