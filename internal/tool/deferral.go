package tool

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm"
)

// The values of the config's tools.defer (and of an MCP server's defer).
const (
	DeferAuto   = "auto"   // gantry's specialist tools deferred; MCP tools past the budget
	DeferNever  = "never"  // every tool declared
	DeferAlways = "always" // every tool but the core deferred
)

// DeferModes lists the values of tools.defer.
var DeferModes = []string{DeferAuto, DeferNever, DeferAlways}

// DefaultMCPBudget is how many bytes of MCP tool declarations (name, description and
// schema: about 1,000 tokens) are declared whole under tools.defer auto; past it the
// MCP tools are deferred.
const DefaultMCPBudget = 4000

// DeferPolicy says which tools a request defers.
type DeferPolicy struct {
	// Mode is tools.defer: auto ("" too), never or always.
	Mode string
	// Server: the API searches deferred tools itself (llm.SearchesTools): they are
	// sent marked Defer. Else they are left out, the Search tool finds them, and a
	// found tool is declared from then on.
	Server bool
	// Search is gantry's own tool search, declared when the API has none and some
	// tool is deferred (nil: none).
	Search Tool
	// Found names the deferred tools found so far, in the order they were found.
	Found []string
	// MCPBudget is DefaultMCPBudget when zero.
	MCPBudget int
}

// Declaration is what one request declares: the specs sent (in order) and the tools
// behind them.
type Declaration struct {
	// Specs are the tools as the request sends them: the declared ones ordered read
	// tools first (so that plan mode's tools are a prefix of the others), then the
	// found ones in the order they were found, then (Server) the deferred ones.
	Specs []llm.ToolSpec
	// Declared are the tools whose schemas the model reads; Deferred those it can
	// search for (found ones included); Found the deferred tools found so far.
	Declared, Deferred, Found []Tool
}

// Declare decides what a request declares of the tools declared now up to level max.
func (r *Registry) Declare(max Level, p DeferPolicy) Declaration {
	ts := r.Declared(max)
	budget := cmp.Or(p.MCPBudget, DefaultMCPBudget)
	mcp := 0
	for _, t := range ts {
		if t.Info().Server != "" {
			mcp += specSize(t.Spec())
		}
	}
	var d Declaration
	for _, t := range ts {
		if p.Search != nil && t.Name() == p.Search.Name() {
			continue // declared below, when it is needed
		}
		if !r.isCore(t) && deferred(t.Info(), p.Mode, mcp > budget) {
			d.Deferred = append(d.Deferred, t)
		} else {
			d.Declared = append(d.Declared, t)
		}
	}
	if len(d.Deferred) > 0 && !p.Server && p.Search != nil && p.Search.Level() <= max {
		d.Declared = append(d.Declared, p.Search)
	}
	slices.SortStableFunc(d.Declared, func(a, b Tool) int {
		return cmp.Or(cmp.Compare(a.Level(), b.Level()), strings.Compare(a.Name(), b.Name()))
	})
	for _, t := range d.Declared {
		d.Specs = append(d.Specs, t.Spec())
	}
	// The breakpoint after the read tools, when other tools follow them.
	for i, t := range d.Declared {
		if t.Level() > LevelRead {
			if i > 0 {
				d.Specs[i-1].Breakpoint = true
			}
			break
		}
	}
	for _, name := range p.Found {
		if i := slices.IndexFunc(d.Deferred, func(t Tool) bool { return t.Name() == name }); i >= 0 &&
			!slices.ContainsFunc(d.Found, func(t Tool) bool { return t.Name() == name }) {
			d.Found = append(d.Found, d.Deferred[i])
		}
	}
	if p.Server {
		for _, t := range d.Deferred {
			s := t.Spec()
			s.Defer = true
			d.Specs = append(d.Specs, s)
		}
		return d
	}
	for _, t := range d.Found {
		d.Specs = append(d.Specs, t.Spec())
	}
	return d
}

// deferred says whether a tool of info is deferred under mode, mcpOver being true
// when the MCP tools together pass their budget.
func deferred(info Info, mode string, mcpOver bool) bool {
	switch {
	case info.Core || mode == DeferNever || info.Defer == DeferNever:
		return false
	case info.Defer == DeferAlways || mode == DeferAlways:
		return true
	case info.Server != "":
		return mcpOver
	}
	return true
}

// specSize is the bytes a tool's declaration takes in a request.
func specSize(s llm.ToolSpec) int { return len(s.Name) + len(s.Description) + len(s.Schema) }

// Deferred lists deferred tools one family a line, for the system prompt: what exists
// and can be found. "" when none is deferred.
func Deferred(ts []Tool) string {
	if len(ts) == 0 {
		return ""
	}
	var families []string
	members := map[string][]string{}
	for _, t := range ts {
		f := cmp.Or(t.Info().Family, t.Name())
		if _, ok := members[f]; !ok {
			families = append(families, f)
		}
		members[f] = append(members[f], t.Name())
	}
	slices.Sort(families)
	var b strings.Builder
	for _, f := range families {
		names := members[f]
		if len(names) == 1 && names[0] == f {
			fmt.Fprintf(&b, "- %s\n", f)
			continue
		}
		if len(names) > 12 {
			names = append(names[:12:12], fmt.Sprintf("and %d more", len(members[f])-12))
		}
		fmt.Fprintf(&b, "- %s: %s\n", f, strings.Join(names, ", "))
	}
	return b.String()
}

type deferredKey struct{}

// WithDeferred gives a call the deferred tools of its request, for the tool search.
func WithDeferred(ctx context.Context, ts []Tool) context.Context {
	return context.WithValue(ctx, deferredKey{}, ts)
}

// DeferredOf returns the deferred tools of the request a call came from.
func DeferredOf(ctx context.Context) []Tool {
	ts, _ := ctx.Value(deferredKey{}).([]Tool)
	return ts
}
