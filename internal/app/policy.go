package app

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"maps"
	"slices"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
)

// newPolicy is the session's policy for every process it starts (see
// contain.Policy): the exec supervisor's judge of the deny rules, the sandbox of the
// moment, and the session's environment — the env of Claude Code's settings files, as
// Claude Code gives it to its session's commands, hooks and servers, then what
// SessionStart hooks exported. Nothing of it is set in gantry's own process: two
// sessions of one process (ACP, gantry mcp, /resume) keep their own.
// The env of Claude settings is read at each process's start: a folder trusted during
// the session adds its project's.
func newPolicy(cfg *config.Config, opts Options, judge contain.Judge, sb *sandboxer, gate *permission.Engine, exported func() []string) *contain.Policy {
	settings := claudeEnv(cfg)
	_, deny := gate.Rules()
	denied := make([]string, len(deny))
	for i, r := range deny {
		denied[i] = r.String()
	}
	id, _ := json.Marshal(struct {
		Root, Cwd string
		Deny      []string
		Env       []string
		Sandbox   *bool
		Network   bool
		Writable  []string
	}{cfg.Root(), opts.Cwd, denied, settings, opts.Sandbox, cfg.Sandbox.Network, cfg.Sandbox.Writable})
	sum := sha256.Sum256(id)
	return &contain.Policy{
		Judge:   judge,
		Sandbox: sb.current,
		Env:     func() []string { return append(claudeEnv(cfg), exported()...) },
		Dir:     opts.Cwd,
		ID:      hex.EncodeToString(sum[:8]),
	}
}

// claudeEnv is the env of Claude Code's settings files as NAME=value pairs, sorted.
func claudeEnv(cfg *config.Config) []string {
	var env []string
	for _, k := range slices.Sorted(maps.Keys(cfg.Claude.Env)) {
		env = append(env, k+"="+cfg.Claude.Env[k])
	}
	return env
}

// Output runs a program for a face (argv: the program and its arguments) under the
// session's policy, in its folder, and returns its standard output: what the terminal
// UI reads the clipboard with.
func (a *App) Output(ctx context.Context, argv []string) ([]byte, error) {
	return a.policy.OutputContext(ctx, contain.Spec{Argv: argv})
}
