package tool

import (
	"context"
	"fmt"
	"slices"
	"sort"
	"sync"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Toolset is a family of tools that owns something live — background processes, a
// server connection, staged changes: its tools, and Close, which ends what they
// started and says what failed. A Toolset is a resource (internal/resource): the one
// who builds it gives it to the resource pool of its scope (the session's, a
// conversation's), which closes it with its owner; a Registry only declares its tools.
type Toolset interface {
	Tools() []Tool
	Close(ctx context.Context) error
}

// entry is one known tool and when it is declared.
type entry struct {
	t    Tool
	when func() bool // nil: always declared
	core func() bool // nil: core as its Info says; else core while it holds
}

func (e entry) declared() bool { return e.when == nil || e.when() }

// Registry holds every tool gantry knows in a session: the tools declared to the
// model, and those whose condition does not hold now (a tool needing a key that is
// not set, a tool of a mode not on). Permission rules may name any known tool.
type Registry struct {
	mu     sync.RWMutex
	tools  []entry
	byName map[string]int
	// A view (Without) has a parent and the names it hides; tools added to a view are
	// its own, in place of the parent's of the same name.
	parent *Registry
	hidden []string
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]int{}} }

// Add declares t. A tool of the same name is replaced.
func (r *Registry) Add(t Tool) { r.add(entry{t: t}) }

// AddIf declares t when cond holds; else t is known but not declared.
func (r *Registry) AddIf(cond bool, t Tool) {
	if cond {
		r.Add(t)
		return
	}
	r.AddWhen(t, func() bool { return false })
}

// AddWhen declares t while when() holds (asked at each request): a tool that comes
// and goes during a session.
func (r *Registry) AddWhen(t Tool, when func() bool) { r.add(entry{t: t, when: when}) }

// CoreWhen makes the tool name part of the core (never deferred) while core() holds:
// a tool a mode needs (exit_plan_mode in plan mode). Unknown names are ignored.
func (r *Registry) CoreWhen(name string, core func() bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.byName[name]; ok {
		r.tools[i].core = core
	}
}

// isCore reports whether t is never deferred now.
func (r *Registry) isCore(t Tool) bool {
	if t.Info().Core {
		return true
	}
	e, ok := r.find(t.Name())
	return ok && e.core != nil && e.core()
}

func (r *Registry) add(e entry) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if i, ok := r.byName[e.t.Name()]; ok {
		r.tools[i] = e
		return
	}
	r.byName[e.t.Name()] = len(r.tools)
	r.tools = append(r.tools, e)
}

// find returns the entry of name.
func (r *Registry) find(name string) (entry, bool) {
	r.mu.RLock()
	i, ok := r.byName[name]
	var e entry
	if ok {
		e = r.tools[i]
	}
	r.mu.RUnlock()
	if ok || r.parent == nil {
		return e, ok
	}
	if slices.Contains(r.hidden, name) {
		return entry{}, false
	}
	return r.parent.find(name)
}

// entries returns a copy of the entries, in the order they were added.
func (r *Registry) entries() []entry {
	r.mu.RLock()
	own := slices.Clone(r.tools)
	r.mu.RUnlock()
	if r.parent == nil {
		return own
	}
	all := slices.DeleteFunc(r.parent.entries(), func(e entry) bool {
		return slices.Contains(r.hidden, e.t.Name()) || slices.ContainsFunc(own, func(o entry) bool { return o.t.Name() == e.t.Name() })
	})
	return append(all, own...)
}

// Known reports whether name is a tool of the registry, declared now or not.
func (r *Registry) Known(name string) bool {
	_, ok := r.find(name)
	return ok
}

// Lookup returns the declared tool of that name.
func (r *Registry) Lookup(name string) (Tool, bool) {
	e, ok := r.find(name)
	if !ok || !e.declared() {
		return nil, false
	}
	return e.t, true
}

// Find returns the tool of that name, declared or not (to describe a stored call).
func (r *Registry) Find(name string) (Tool, bool) {
	e, ok := r.find(name)
	return e.t, ok
}

// Counterpart is the tool declared now up to level max that another agent calls
// name (Claude Code's Bash, Codex's shell): a tool whose Claude names or aliases hold
// it, the one naming it earliest and with the fewest such names (Write is write_file,
// not apply_patch, which Claude's Write, Edit and MultiEdit all stand for).
func (r *Registry) Counterpart(name string, max Level) (Tool, bool) {
	var best Tool
	bestAt, bestN := 0, 0
	for _, t := range r.Declared(max) {
		info := t.Info()
		others := append(slices.Clone(info.ClaudeNames), info.Aliases...)
		at := slices.Index(others, name)
		if at < 0 {
			continue
		}
		if best == nil || at < bestAt || (at == bestAt && len(others) < bestN) {
			best, bestAt, bestN = t, at, len(others)
		}
	}
	return best, best != nil
}

// All returns every known tool, sorted by name.
func (r *Registry) All() []Tool {
	var out []Tool
	for _, e := range r.entries() {
		out = append(out, e.t)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Declared returns the tools declared now up to level max, sorted by name.
func (r *Registry) Declared(max Level) []Tool {
	var out []Tool
	for _, e := range r.entries() {
		if e.t.Level() <= max && e.declared() {
			out = append(out, e.t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Specs returns the declarations of Declared(max).
func (r *Registry) Specs(max Level) []llm.ToolSpec {
	ts := r.Declared(max)
	specs := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		specs[i] = t.Spec()
	}
	return specs
}

// Names returns the names of Declared(max).
func (r *Registry) Names(max Level) []string {
	ts := r.Declared(max)
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}

// Without returns a view of the registry without the named tools (a subagent's). The
// view shares the tools and sees tools added to the registry later; a tool added to
// the view is its own, in place of the registry's of the same name (a subagent's own
// eval kernels, whose Kernels its conversation's resource pool owns).
func (r *Registry) Without(names ...string) *Registry {
	return &Registry{byName: map[string]int{}, parent: r, hidden: slices.Clone(names)}
}

// String names the registry's declared tools, for debugging.
func (r *Registry) String() string { return fmt.Sprint(r.Names(LevelExec)) }
