package app

import (
	"path/filepath"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/ask"
	"github.com/gantry-dev/gantry/internal/tools/compacttool"
	"github.com/gantry-dev/gantry/internal/tools/computer"
	"github.com/gantry-dev/gantry/internal/tools/debugtool"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/hooktool"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
	"github.com/gantry-dev/gantry/internal/tools/plan"
	"github.com/gantry-dev/gantry/internal/tools/search"
	"github.com/gantry-dev/gantry/internal/tools/shell"
	"github.com/gantry-dev/gantry/internal/tools/skill"
	"github.com/gantry-dev/gantry/internal/tools/structural"
	"github.com/gantry-dev/gantry/internal/tools/subagent"
	"github.com/gantry-dev/gantry/internal/tools/task"
	"github.com/gantry-dev/gantry/internal/tools/todo"
	"github.com/gantry-dev/gantry/internal/tools/toolsearch"
	"github.com/gantry-dev/gantry/internal/tools/vibe"
	"github.com/gantry-dev/gantry/internal/tools/web"
)

// deps is everything the tools are built from, explicitly: the config and the
// environment for every tool; for a session's tools, the session's parts too
// (nil in a standalone registry, which then has only the tools that need no session).
type deps struct {
	cfg      *config.Config
	getenv   func(string) string
	tasksDir string // background task output ("": no background tasks)
	// policy is the session's rules for every process its tools start: the deny
	// rules' judge, the sandbox, the environment (nil: gantry's own, for a standalone
	// registry without rules).
	policy *contain.Policy
	// pool owns the live resources the tools start (internal/resource): the session's
	// pool, under the process's, or a process's own for a registry without a session.
	// cwd is the working directory they serve ("": no language-server, debug or eval
	// tools).
	pool *resource.Pool
	cwd  string

	// A session's parts; session is false for a standalone registry.
	session   bool
	allow     skill.Allower     // the gate, for what a skill's allowed-tools allow
	notify    func(face.Notice) // a line for the person, once the face listens
	asker     face.Asker
	modes     plan.Session
	hooks     *hook.Runner
	compactor compacttool.Compactor
	spawner   subagent.Spawner
	agents    []subagent.Brief // the agent definitions the agent tool offers
	todos     *todo.List
	board     *task.Board
	staged    *structural.Staged // the session's staged structural changes
	vibe      *vibe.Board        // the session's background workers
	vibeOn    func() bool        // vibe mode is on: their tools are declared
}

// buildTools is the one place every tool is built and registered: a tool is its
// package and one line here (see docs/architecture.md). A tool whose condition does
// not hold is still registered, known but not declared, so that rules may name it.
// It returns the registry, the shell tools (whose background tasks the status line
// counts), the skills found and the notices of the skill catalogue.
func buildTools(d deps) (*tool.Registry, *shell.Set, *skill.Set, []string) {
	cfg := d.cfg
	reg := tool.NewRegistry()
	sh := shell.NewSet(shell.Options{Tasks: tasks(d.tasksDir), DefaultTimeout: time.Duration(cfg.Bash.Timeout) * time.Second,
		Policy: d.policy})
	sh = own(reg, d.pool, shellKey, sh, nil)
	// The language servers: the tools are declared while a server can run here, and
	// every tool that writes files reports the diagnostics its writes introduce.
	var lm *lsp.Manager
	var seen *lsptool.Seen
	if d.cwd != "" {
		lo := lsptool.Section.Of(cfg).ManagerOptions()
		lo.Policy = d.policy
		lm, seen = lsp.NewManager(d.pool, lo), lsptool.NewSeen()
	}
	writes := func(t tool.Tool) tool.Tool { return lsptool.OnWrite(t, lm, seen) }
	each(fs.Tools(fs.Options{MaxOutput: cfg.MaxOutput}), func(t tool.Tool) { reg.AddIf(cfg.EditTools, writes(t)) })
	if lm != nil {
		usable := func() bool { return len(lm.Workspace(d.cwd)) > 0 }
		reg.AddWhen(lsptool.Tool(lm, lsptool.Options{MaxOutput: cfg.MaxOutput}), usable)
		reg.AddWhen(writes(lsptool.Rename(lm)), func() bool { return cfg.EditTools && usable() })
	}
	each(search.Tools(search.Options{MaxOutput: cfg.MaxOutput}), reg.Add)
	// Structural search, and rewrites staged in the session: declared where gantry was
	// built with its grammars (cgo).
	var staged *structural.Staged
	if d.session && cfg.EditTools {
		staged = d.staged
	}
	if ss := structural.NewSet(structural.Options{MaxOutput: cfg.MaxOutput}, staged, writes); syntax.Available {
		own(reg, d.pool, stagedKey, ss, nil)
	} else {
		each(ss.Tools(), func(t tool.Tool) { reg.AddIf(false, t) })
	}
	// The desktop: declared while a display is reachable ($DISPLAY connects; macOS).
	dk := computer.New(computer.Options{MaxOutput: cfg.MaxOutput})
	own(reg, d.pool, desktopKey, dk, dk.Usable)
	wo := web.Options{MaxOutput: cfg.MaxOutput, Pool: d.pool}.WithEnv(d.getenv)
	reg.Add(web.Fetch(wo))
	reg.AddIf(wo.ExaAPIKey != "", web.Search(wo))
	found, skillNotices := skill.CatalogWith(cfg.SkillDirs(), pluginSkills(cfg.Plugins()))
	skills := skill.NewSet(found)
	reg.AddIf(skill.Enabled(found), skill.ToolOf(skills, skill.Options{MaxOutput: cfg.MaxOutput, Allow: d.allow, Known: reg.Known, Notify: d.notify}))
	if !d.session {
		return reg, sh, skills, skillNotices
	}
	var bg subagent.Background
	if t := sh.Tasks(); t != nil {
		bg = t
	}
	reg.Add(subagent.Tool(d.spawner, bg, d.agents))
	// Asking the person and having a plan approved are declared while someone can
	// answer (not in print mode without -i), and known always, so rules may name them.
	someone := func() bool { return !face.Nobody(d.asker) }
	reg.AddWhen(ask.Tool(d.asker, 0), someone)
	// The way into plan mode is declared outside it, the way out inside it, where it
	// is part of the core (plan mode needs it; elsewhere it could only fail).
	inPlan := func() bool { return d.modes.Mode() == permission.ModePlan }
	pt := plan.Tools(d.modes, d.asker) // enter and exit, sharing the mode they left
	enter, exit := pt[0], pt[1]
	reg.AddWhen(enter, func() bool { return someone() && !inPlan() })
	reg.AddWhen(exit, func() bool { return someone() && inPlan() })
	reg.CoreWhen(exit.Name(), inPlan)
	reg.Add(hooktool.Tool(d.hooks))
	reg.Add(compacttool.Tool(d.compactor))
	each(todo.Tools(d.todos), reg.Add)
	reg.Add(task.Tool(d.board))
	reg.Add(toolsearch.Tool()) // declared by the loop when tools are deferred and the API has no search
	if d.cwd != "" {
		addConversationSets(reg, d.pool, d)
	}
	// Vibe mode's workers: declared while it is on; the session's newest resource, so
	// that it is closed first and its workers stop before the tools they use close.
	if d.vibe != nil {
		own(reg, d.pool, vibeKey, d.vibe, d.vibeOn)
	}
	return reg, sh, skills, skillNotices
}

// addConversationSets adds the toolsets every conversation has its own of, owned by
// pool under conversation keys: the debugger (one debug session, declared while an
// adapter's program is installed) and the eval kernels (one per language, run like
// bash commands: the exec supervisor's judge, the sandbox when there is one). A
// subagent and a vibe worker get their own (App.ownTools), so that none sees
// another's variables or ends its session.
func addConversationSets(reg *tool.Registry, pool *resource.Pool, d deps) {
	o := debugtool.Section.Of(d.cfg).Options()
	o.Policy, o.MaxOutput = d.policy, d.cfg.MaxOutput
	dbg := debugtool.New(o)
	own(reg, pool, debugKey, dbg, dbg.Usable)
	eo := evaltool.Section.Of(d.cfg).Options()
	eo.Policy = d.policy
	ks := evaltool.New(eo)
	own(reg, pool, evalKey, ks, ks.Usable)
}

// ownTools gives reg, a subagent's or a vibe worker's view of the session's tools, its
// own debugger and eval kernels in place of the session's, owned by the
// conversation's resource pool it returns: the caller closes it when the
// conversation ends.
func (a *App) ownTools(reg *tool.Registry) *resource.Pool {
	pool := a.scope.Child(resource.Conversation)
	if a.opts.Cwd != "" {
		addConversationSets(reg, pool, deps{cfg: a.cfg, policy: a.policy})
	}
	return pool
}

func each(ts []tool.Tool, f func(tool.Tool)) {
	for _, t := range ts {
		f(t)
	}
}

// tasks is the owner of background tasks writing under dir, or nil for none.
func tasks(dir string) *shell.Tasks {
	if dir == "" {
		return nil
	}
	return shell.NewTasks(dir)
}

// sessionDeps are the tools' dependencies in this session.
func (a *App) sessionDeps() deps {
	return deps{
		cfg: a.cfg, getenv: a.cfg.Getenv,
		tasksDir:  filepath.Join(filepath.Dir(StorePath(a.opts)), "tasks", a.sess.ID()),
		policy:    a.policy,
		pool:      a.scope,
		cwd:       a.opts.Cwd,
		session:   true,
		allow:     a.gate,
		notify:    func(n face.Notice) { a.emit(n) },
		asker:     &a.asker,
		modes:     planModes{a},
		hooks:     a.hooks,
		compactor: a.agent,
		spawner:   a.spawner,
		agents:    briefs(a.Agents()),
		todos:     a.todos,
		staged:    a.staged,
		board:     a.board,
		vibe:      a.vibe,
		vibeOn:    a.vibeOn.Load,
	}
}

// execJudge is the exec supervisor's judge of the gate's deny rules on bash, or nil
// when none names bash.
func execJudge(gate *permission.Engine) contain.Judge {
	if g := gate.ExecGuard(); g != nil {
		return g.Judge
	}
	return nil
}
