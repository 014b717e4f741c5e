package app

import (
	"context"
	"os"
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
)

// Standalone returns the tools that need no session — files, shell, search, web,
// skills, eval and the configured MCP servers' — for running one tool from the command line
// (`gantry tool`), with the environment they run in, the sentences of the MCP servers
// that failed, and a function that stops what they started and says what failed.
// With rules, the project's and the user's deny rules hold (the gate is in yolo mode:
// nothing is asked, the person at the command line is the authority, but what a rule
// denies is refused — and bash runs under the exec supervisor); without, gate is nil.
//
// A folder not trusted (trust.go) keeps its project's servers, programs and allow rules
// to itself unless trust (--trust): failures then says so in one line.
func Standalone(ctx context.Context, cwd string, rules, trust bool) (reg *tool.Registry, env tool.Env, gate *permission.Engine, failures []string, stop func() error, err error) {
	if cwd == "" {
		if cwd, err = os.Getwd(); err != nil {
			return nil, tool.Env{}, nil, nil, nil, err
		}
	}
	if cwd, err = filepath.Abs(tool.ExpandHome(cwd)); err != nil {
		return nil, tool.Env{}, nil, nil, nil, err
	}
	a := &App{opts: Options{Cwd: cwd, Trust: trust}}
	if a.cfg, err = config.LoadHeld(cwd); err == nil {
		err = a.folderTrust(trustPath(Options{}))
	}
	if err != nil {
		return nil, tool.Env{}, nil, nil, nil, err
	}
	cfg := a.cfg
	if !a.trust.Trusted() {
		failures = append(failures, untrustedNotice(a.trust))
	}
	pool := resource.NewPool(nil)
	d := deps{cfg: cfg, getenv: cfg.Getenv, pool: pool, cwd: cwd}
	if rules {
		if gate, err = newGate(cfg, Options{PermissionMode: string(permission.ModeYolo)}, a.trust.Trusted()); err != nil {
			return nil, tool.Env{}, nil, nil, nil, err
		}
		d.policy = &contain.Policy{Judge: execJudge(gate), Dir: cwd, ID: "standalone"}
	}
	reg = standaloneTools(d)
	if gate != nil {
		gate.SetFileTools(fileTools(reg))
	}
	failures = append(append(failures, cfg.MCPProblems...), connectMCP(ctx, pool, reg, mcpEntries(cfg, nil, cfg.Lookup), cwd, []string{cfg.Root()}, nil, d.policy)...)
	stop = func() error { return pool.Close(context.Background()) }
	env = tool.Env{Cwd: cwd}
	if gate != nil {
		env.Files = gate.FileGuard("") // the deny rules of the file families, for every tool
	}
	return reg, env, gate, failures, stop, nil
}

// standaloneTools builds the tools that run in one process without a session: those
// buildTools builds without one, and eval, whose kernel starts with the cell and stops
// with d.pool, the process's (a session has one per conversation:
// addConversationSets).
func standaloneTools(d deps) *tool.Registry {
	reg, _, _, _ := buildTools(d)
	eo := evaltool.Section.Of(d.cfg).Options()
	eo.Policy = d.policy
	ks := evaltool.New(eo)
	own(reg, d.pool, evalKey, ks, ks.Usable)
	return reg
}
