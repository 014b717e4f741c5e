package tool

import (
	"sort"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Registry holds the tools of a run. Tools are added when their condition holds (the
// caller decides: editTools, skills present, …); Declared caps them at a level.
type Registry struct {
	tools  []Tool
	byName map[string]Tool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{byName: map[string]Tool{}} }

// Add declares t. Adding a second tool of the same name replaces the first.
func (r *Registry) Add(t Tool) {
	if old, ok := r.byName[t.Name()]; ok {
		for i, x := range r.tools {
			if x == old {
				r.tools[i] = t
			}
		}
	} else {
		r.tools = append(r.tools, t)
	}
	r.byName[t.Name()] = t
}

// AddIf declares t when cond holds.
func (r *Registry) AddIf(cond bool, t Tool) {
	if cond {
		r.Add(t)
	}
}

// Lookup finds a tool by name, whatever its level.
func (r *Registry) Lookup(name string) (Tool, bool) {
	t, ok := r.byName[name]
	return t, ok
}

// Declared returns the tools at or below level max, sorted by name.
func (r *Registry) Declared(max Level) []Tool {
	var out []Tool
	for _, t := range r.tools {
		if t.Level() <= max {
			out = append(out, t)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name() < out[j].Name() })
	return out
}

// Specs returns the declarations of the tools at or below level max.
func (r *Registry) Specs(max Level) []llm.ToolSpec {
	ts := r.Declared(max)
	specs := make([]llm.ToolSpec, len(ts))
	for i, t := range ts {
		specs[i] = t.Spec()
	}
	return specs
}

// Names returns the names of the tools at or below level max.
func (r *Registry) Names(max Level) []string {
	ts := r.Declared(max)
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.Name()
	}
	return names
}

// Without returns a registry of the same tools but those named.
func (r *Registry) Without(names ...string) *Registry {
	out := NewRegistry()
	for _, t := range r.tools {
		skip := false
		for _, n := range names {
			if t.Name() == n {
				skip = true
			}
		}
		if !skip {
			out.Add(t)
		}
	}
	return out
}
