package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// UsageError is a mistake in what the command line said (a flag's value, a rule given
// with --allow): the command exits 2 for it, as for any usage error.
type UsageError struct{ Err error }

func (e *UsageError) Error() string { return e.Err.Error() }
func (e *UsageError) Unwrap() error { return e.Err }

func usageErrorf(format string, args ...any) error {
	return &UsageError{fmt.Errorf(format, args...)}
}

// hooks adapts the hook runner to what the loop needs.
type hooks struct{ r *hook.Runner }

func (h hooks) Has(event string) bool { return h.r.Has(event) }

func (h hooks) Run(ctx context.Context, event, toolName string, fields map[string]any) agent.HookResult {
	o := h.r.Run(ctx, event, toolName, fields)
	return agent.HookResult{Block: o.Block, Reason: o.Reason, Context: o.AdditionalContext,
		UpdatedInput: o.UpdatedInput, UpdatedInputClaude: o.UpdatedInputClaude, Allow: o.Allow, Warnings: o.Warnings,
		Ask: o.Ask, AskReason: o.AskReason, Stop: o.Stop, StopReason: o.StopReason, Messages: o.Messages}
}

// newGate builds the permission engine: the mode, and the rules of the rules files
// (project and user), of config.yaml and of the flags, each kept with where it comes
// from. A bad flag (mode or rule) is a UsageError.
func newGate(cfg *config.Config, opts Options, trusted bool) (*permission.Engine, error) {
	modeName := first(opts.PermissionMode, cfg.PermissionMode, string(permission.ModeDefault))
	mode, err := permission.ParseMode(modeName)
	if err != nil {
		if opts.PermissionMode != "" {
			return nil, usageErrorf("--permission-mode: %v", err)
		}
		return nil, err
	}
	rules, err := permission.LoadRules(cfg.Root(), config.UserDir())
	if !trusted && err == nil {
		// A folder not trusted: the project's rules file gives its deny rules only.
		var project permission.RuleSet
		if project, err = heldRules(cfg.Root(), &config.Held{}); err == nil {
			rules, err = permission.LoadRules("", config.UserDir())
			rules.Deny = append(project.Deny, rules.Deny...)
		}
	}
	if err != nil {
		return nil, err
	}
	rules.AllowAll = rules.AllowAll || cfg.Permissions.AllowAll
	for i, s := range cfg.Permissions.Allow {
		r, err := permission.ParseRuleFrom(s, cfg.Permissions.AllowFrom(i))
		if err != nil {
			return nil, err
		}
		rules.Allow = append(rules.Allow, r)
	}
	for i, s := range cfg.Permissions.Deny {
		r, err := permission.ParseRuleFrom(s, cfg.Permissions.DenyFrom(i))
		if err != nil {
			return nil, err
		}
		rules.Deny = append(rules.Deny, r)
	}
	for _, s := range opts.Allow {
		r, err := permission.ParseRuleFrom(s, "--allow")
		if err != nil {
			return nil, &UsageError{err}
		}
		rules.Allow = append(rules.Allow, r)
	}
	for _, s := range opts.Deny {
		r, err := permission.ParseRuleFrom(s, "--deny")
		if err != nil {
			return nil, &UsageError{err}
		}
		rules.Deny = append(rules.Deny, r)
	}
	e, err := permission.NewEngineFromRules(mode, rules, nil, nil)
	if err != nil {
		return nil, err
	}
	for i, s := range cfg.Permissions.Ask {
		if err := e.AddAskRules([]string{s}, cfg.Permissions.AskFrom(i)); err != nil {
			return nil, err
		}
	}
	e.SetProject(cfg.Root())
	e.SetProtected(config.UserDir())
	e.SetRunsCode(codeFiles()...)
	return e, nil
}

// codeFiles are the files outside the project that make a later shell or session run
// code: the shells' start-up files and Claude Code's user settings. The file tools ask
// before writing them in every mode.
func codeFiles() []string {
	var out []string
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		for _, f := range []string{".bashrc", ".bash_profile", ".bash_login", ".profile", ".zshrc", ".zshenv", ".zprofile", ".config/fish/config.fish"} {
			out = append(out, filepath.Join(home, f))
		}
	}
	if d := config.ClaudeDir(); d != "" {
		out = append(out, filepath.Join(d, "settings.json"), filepath.Join(d, "settings.local.json"))
	}
	return append(out, config.ClaudeJSON())
}

// checkRuleTools refuses rules that name no tool of the registry (MCP tools and
// patterns ending in * excepted): a rule of a flag is a UsageError.
func checkRuleTools(gate *permission.Engine, reg *tool.Registry) error {
	var names []string
	for _, t := range reg.All() {
		names = append(names, t.Name())
	}
	allow, deny := gate.Rules()
	var fromFlags, fromFiles []permission.Rule
	for _, r := range append(allow, deny...) {
		if r.Source == "--allow" || r.Source == "--deny" {
			fromFlags = append(fromFlags, r)
		} else {
			fromFiles = append(fromFiles, r)
		}
	}
	if err := permission.CheckTools(fromFlags, reg.Known, names); err != nil {
		return &UsageError{err}
	}
	return permission.CheckTools(fromFiles, reg.Known, names)
}

// mcpRuleNotices says, once the MCP servers are connected, which rules name a tool that
// a connected server does not have (a rule for a server not connected now is left
// alone: servers come and go).
func mcpRuleNotices(gate *permission.Engine, reg *tool.Registry) []string {
	allow, deny := gate.Rules()
	var out []string
	for _, r := range append(allow, deny...) {
		server, _, ok := strings.Cut(strings.TrimPrefix(r.Tool, "mcp__"), "__")
		if !strings.HasPrefix(r.Tool, "mcp__") || !ok || strings.HasSuffix(r.Tool, "*") || reg.Known(r.Tool) {
			continue
		}
		prefix := "mcp__" + server + "__"
		var theirs []string
		for _, t := range reg.All() {
			if strings.HasPrefix(t.Name(), prefix) {
				theirs = append(theirs, t.Name())
			}
		}
		if len(theirs) == 0 {
			continue // the server is not connected
		}
		msg := fmt.Sprintf("the rule %q names no tool of the MCP server %s (it has %s)", r.String(), server, strings.Join(theirs, ", "))
		if r.Source != "" {
			msg = r.Source + ": " + msg
		}
		out = append(out, msg)
	}
	return out
}

// planModes is the session's permission mode as the plan-mode tools change it: the
// model's changes are events like the person's, and the model, who made them, needs
// no reminder of them.
type planModes struct{ a *App }

func (p planModes) Mode() permission.Mode { return p.a.gate.Mode() }

func (p planModes) SetMode(m permission.Mode) {
	p.a.changeMode(m)
	p.a.mu.Lock()
	p.a.modeNote = false
	p.a.mu.Unlock()
}

func (p planModes) AllowForSession(rules []string) error { return p.a.gate.AllowForSession(rules) }

func (p planModes) Suggest(c permission.Call) permission.Grant { return p.a.gate.Suggest(c) }

// askerRef is the session's Asker, set by Start: until then nobody can answer.
type askerRef struct {
	mu sync.Mutex
	a  face.Asker
}

func (r *askerRef) set(a face.Asker) {
	r.mu.Lock()
	r.a = a
	r.mu.Unlock()
}

func (r *askerRef) get() face.Asker {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.a == nil {
		return face.NoHuman{}
	}
	return r.a
}

// NoHuman reports whether nobody is there to answer (see agent.Agent's use of it).
func (r *askerRef) NoHuman() bool {
	return face.Nobody(r.get())
}

// TrustFolder implements face.Asker.
func (r *askerRef) TrustFolder(ctx context.Context, req face.TrustRequest) (bool, error) {
	return r.get().TrustFolder(ctx, req)
}

// AskPermission implements face.Asker.
func (r *askerRef) AskPermission(ctx context.Context, req face.PermissionRequest) (face.Answer, error) {
	return r.get().AskPermission(ctx, req)
}

// AskUser implements face.Asker.
func (r *askerRef) AskUser(ctx context.Context, qs []face.Question) (face.UserAnswer, error) {
	return r.get().AskUser(ctx, qs)
}

// ApprovePlan implements face.Asker.
func (r *askerRef) ApprovePlan(ctx context.Context, req face.PlanRequest) (face.PlanAnswer, error) {
	return r.get().ApprovePlan(ctx, req)
}

// sessionStart runs the SessionStart hooks: what they add for the model goes into the
// system prompt; warnings are sentences for the person.
func (a *App) sessionStart(ctx context.Context) (context string, warnings []string) {
	if !a.hooks.Has(hook.SessionStart) {
		return "", nil
	}
	source := "startup"
	if a.resumed {
		source = "resume"
	}
	o := a.hooks.Run(ctx, hook.SessionStart, source, map[string]any{"source": source, "model": a.agent.Config.Model})
	a.env.add(o.Env)
	for _, w := range o.Warnings {
		warnings = append(warnings, "SessionStart hook: "+w)
	}
	if o.Block && o.Reason != "" {
		warnings = append(warnings, "SessionStart hook: "+o.Reason)
	}
	if o.AdditionalContext == "" {
		return "", warnings
	}
	return "\n<session-start-hooks>\n" + o.AdditionalContext + "\n</session-start-hooks>\n", warnings
}

// fileTools names the tools of reg that read or write the files of their paths, for
// path rules that cover every tool of a family.
func fileTools(reg *tool.Registry) map[string]tool.Files {
	out := map[string]tool.Files{}
	for _, t := range reg.All() {
		if f := t.Info().Files; f != tool.FilesNone {
			out[t.Name()] = f
		}
	}
	return out
}
