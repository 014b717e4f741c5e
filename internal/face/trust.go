package face

import (
	"context"
	"fmt"
	"strings"
)

// TrustRequest asks whether a folder's project files may run: the first time (or,
// after a change to them, again) a folder's MCP servers, hooks, env or .gantry config
// would run or apply. A face shows every line of it before the person answers.
type TrustRequest struct {
	Folder string
	// Changed names the files changed since the folder was trusted; empty: the
	// folder was never trusted.
	Changed []string
	// Servers ("name: command args"), Hooks ("Event: command (file)"), Env (the
	// names of the variables), Allow ("rule (file:line)", "allow_all (file)"): what
	// would run or apply.
	Servers, Hooks, Env, Allow []string
	// Programs are the language servers, debug adapters and interpreters the
	// project's config names ("lsp.servers.go: command args").
	Programs []string
}

// Lines is the request as the lines a face shows: a heading, then each group.
func (r TrustRequest) Lines() []string {
	head := fmt.Sprintf("Trust the folder %s? Its project files would run these:", r.Folder)
	if len(r.Changed) > 0 {
		head = fmt.Sprintf("The folder %s changed since you trusted it (%s). Trust it again? Its project files would run these:", r.Folder, strings.Join(r.Changed, ", "))
	}
	out := []string{head}
	for _, g := range []struct {
		name  string
		items []string
	}{{"MCP servers", r.Servers}, {"hooks", r.Hooks}, {"environment variables", r.Env}, {"allow rules", r.Allow}, {"programs", r.Programs}} {
		if len(g.items) == 0 {
			continue
		}
		out = append(out, "  "+g.name+":")
		for _, it := range g.items {
			out = append(out, "    "+it)
		}
	}
	return out
}

// Trusting is the part of an Asker that answers a TrustRequest: true to run the
// folder's project files (the answer is kept for the folder until they change).
type Trusting interface {
	TrustFolder(ctx context.Context, req TrustRequest) (bool, error)
}

// TrustFolder implements Asker.
func (NoHuman) TrustFolder(context.Context, TrustRequest) (bool, error) {
	return false, ErrNoHuman
}

// TrustInTurn is an Asker that can ask only within a turn (an editor: ACP's requests
// belong to a prompt). The folder's trust is asked at the session's first prompt, and
// what a yes adds (servers, the project's SessionStart hooks) starts then.
type TrustInTurn interface {
	TrustInTurn() bool
}
