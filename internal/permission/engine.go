package permission

import (
	"fmt"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Engine is the gate built from a mode and allow/deny rules.
type Engine struct {
	mu       sync.Mutex
	mode     Mode
	allowAll bool
	allow    []Rule
	deny     []Rule
	// ask rules make a call asked in every mode, whatever the allow rules say
	// (Claude Code's permissions.ask); deny rules still refuse.
	ask      []Rule
	remember []remembered
	project  string // the project root, for grants (SetProject)
	root     string // the project root, symlinks resolved, for path rules
	// families names the tools that read or write files (SetFileTools);
	// protectedDirs the folders outside the project protected like .gantry.
	families      map[string]tool.Files
	protectedDirs []string
	codeFiles     []string        // files outside the project that run code later (SetRunsCode)
	sandboxed     func(Mode) bool // commands run in the sandbox in a mode (SetSandboxed)
	outputs       string          // the session's saved outputs, read freely (SetOwnOutputs)
}

type remembered struct {
	tool, principal string
	allow           bool
	// paths and files are the call's, for the file guard (a file denied always).
	paths []string
	files tool.Files
}

// NewEngine makes a gate from rules given as strings ("tool" or "tool:regex").
func NewEngine(mode Mode, allow, deny []string) (*Engine, error) {
	return NewEngineFromRules(mode, RuleSet{}, allow, deny)
}

// NewEngineFromRules makes a gate from the rules files and the rules of the flags.
// allow_all makes every mode but plan ask nothing; deny rules still hold.
func NewEngineFromRules(mode Mode, rules RuleSet, extraAllow, extraDeny []string) (*Engine, error) {
	e := &Engine{mode: mode, allowAll: rules.AllowAll}
	e.allow = append(e.allow, rules.Allow...)
	e.deny = append(e.deny, rules.Deny...)
	allow, err := parseRules(extraAllow, "--allow")
	if err != nil {
		return nil, err
	}
	deny, err := parseRules(extraDeny, "--deny")
	if err != nil {
		return nil, err
	}
	e.allow = append(e.allow, allow...)
	e.deny = append(e.deny, deny...)
	return e, nil
}

func parseRules(ss []string, source string) ([]Rule, error) {
	var out []Rule
	for _, s := range ss {
		r, err := ParseRule(s)
		if err != nil {
			return nil, err
		}
		r.Source = source
		out = append(out, r)
	}
	return out, nil
}

// Rules returns the allow and deny rules in force (files, config, flags, the session's),
// each with its Source.
func (e *Engine) Rules() (allow, deny []Rule) {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Rule(nil), e.allow...), append([]Rule(nil), e.deny...)
}

// Mode returns the current mode.
func (e *Engine) Mode() Mode {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.mode
}

// SetMode switches the mode and returns the one before.
func (e *Engine) SetMode(m Mode) (previous Mode) {
	e.mu.Lock()
	previous, e.mode = e.mode, m
	e.mu.Unlock()
	return previous
}

// modeOf is the mode c is checked under: the engine's, or the stricter c.Mode.
func (e *Engine) modeOf(c Call) Mode {
	return Stricter(e.mode, c.Mode)
}

// Remember implements Gate. An "always" is kept for this exact tool and principal.
func (e *Engine) Remember(c Call, allow bool) {
	e.mu.Lock()
	e.remember = append(e.remember, remembered{tool: c.Tool, principal: c.Principal, allow: allow, paths: c.Paths, files: c.Files})
	e.mu.Unlock()
}

// AllowForSession adds allow rules for the rest of the session (the allowedPrompts
// of an approved plan). Nothing is added unless every rule parses.
func (e *Engine) AllowForSession(rules []string) error {
	rs, err := parseRules(rules, "session")
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.allow = append(e.allow, rs...)
	e.mu.Unlock()
	return nil
}

// AllowRules adds allow rules from files (a folder's, once it is trusted), and
// allow_all when allowAll.
func (e *Engine) AllowRules(rules []Rule, allowAll bool) {
	e.mu.Lock()
	e.allow = append(e.allow, rules...)
	e.allowAll = e.allowAll || allowAll
	e.mu.Unlock()
}

// AddAskRules adds rules whose calls are asked in every mode (deny rules aside),
// source naming where they come from. Nothing is added unless every rule parses.
func (e *Engine) AddAskRules(rules []string, source string) error {
	rs, err := parseRules(rules, source)
	if err != nil {
		return err
	}
	e.mu.Lock()
	e.ask = append(e.ask, rs...)
	e.mu.Unlock()
	return nil
}

// Check implements Gate.
func (e *Engine) Check(c Call) Verdict {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ownOutputs(c) {
		return Verdict{Decision: Allow, Reason: "it reads the session's own saved outputs"}
	}
	v := e.check(c)
	if v.Decision == Deny || len(e.ask) == 0 {
		return v
	}
	if r, ok := e.asked(c); ok {
		return Verdict{Decision: Ask, Reason: fmt.Sprintf("an ask rule (%s) says to ask", r.describe())}
	}
	return v
}

// asked returns the ask rule that covers c: its principal, any of its simple
// commands (bash) or any of its paths.
func (e *Engine) asked(c Call) (Rule, bool) {
	p := strings.TrimSpace(c.Principal)
	var cmds []SimpleCommand
	if c.Tool == "bash" {
		cmds, _ = Commands(c.Principal)
	}
	for _, r := range e.ask {
		if !e.covers(r, c) {
			continue
		}
		if r.Pattern == nil {
			return r, true
		}
		if c.Files != tool.FilesNone && len(c.Paths) > 0 {
			for _, x := range c.Paths {
				if r.matchesCanon(e.canon(x)) {
					return r, true
				}
			}
			continue
		}
		if r.Pattern.MatchString(p) {
			return r, true
		}
		for _, sc := range cmds {
			if r.Pattern.MatchString(sc.Text) {
				return r, true
			}
			for _, rd := range sc.Readings {
				if r.Pattern.MatchString(rd) {
					return r, true
				}
			}
		}
	}
	return Rule{}, false
}

// check is Check without the ask rules.
func (e *Engine) check(c Call) Verdict {
	if c.Tool == "bash" {
		return e.checkBash(c)
	}
	if c.Files != tool.FilesNone && len(c.Paths) > 0 {
		return e.checkFiles(c)
	}
	p := strings.TrimSpace(c.Principal)
	for _, r := range e.deny {
		if r.denies(c, p) {
			return Verdict{Decision: Deny, Reason: fmt.Sprintf("a deny rule (%s) forbids it", r.describe())}
		}
	}
	if e.modeOf(c) == ModePlan && c.planLevel() != tool.LevelRead {
		return e.byMode(c) // plan mode is read-only, whatever the rules allow
	}
	if v, ok := e.remembered(c); ok {
		return v
	}
	for _, r := range e.allow {
		if r.allows(c, p) {
			return Verdict{Decision: Allow, Reason: fmt.Sprintf("an allow rule (%s) permits it", r.describe())}
		}
	}
	return e.byMode(c)
}

func (e *Engine) remembered(c Call) (Verdict, bool) {
	for i := len(e.remember) - 1; i >= 0; i-- {
		m := e.remember[i]
		if m.tool == c.Tool && m.principal == c.Principal {
			if m.allow {
				return Verdict{Decision: Allow, Reason: "the user allowed it for this session"}, true
			}
			return Verdict{Decision: Deny, Reason: "the user refused it for this session"}, true
		}
	}
	return Verdict{}, false
}

// byMode is the answer when no rule decides.
func (e *Engine) byMode(c Call) Verdict {
	mode := e.modeOf(c)
	switch {
	case mode == ModePlan:
		if c.planLevel() == tool.LevelRead {
			return Verdict{Decision: Allow, Reason: "read tools run in plan mode"}
		}
		return Verdict{Decision: Deny, Reason: "plan mode allows only read tools"}
	case mode == ModeYolo:
		return Verdict{Decision: Allow, Reason: "yolo mode"}
	case e.allowAll:
		return Verdict{Decision: Allow, Reason: "allow_all is set in the rules file"}
	case c.Level == tool.LevelRead && e.fencedByAllow(c.Tool):
		return Verdict{Decision: Ask, Reason: fmt.Sprintf("the allow rules of %s name what it may reach without asking, and this is not among them", c.Tool)}
	case mode == ModeAcceptEdits:
		if c.Level <= tool.LevelWrite {
			return Verdict{Decision: Allow, Reason: "accept-edits mode"}
		}
		return Verdict{Decision: Ask, Reason: "accept-edits mode asks before running commands"}
	default:
		if c.Level == tool.LevelRead {
			return Verdict{Decision: Allow, Reason: "read tools need no permission"}
		}
		return Verdict{Decision: Ask, Reason: fmt.Sprintf("default mode asks before %s tools", c.Level)}
	}
}
