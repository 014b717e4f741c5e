// Package app wires gantry together: configuration, the model provider, the tools,
// the permission gate and the session store become one Agent that a face drives.
package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/refs"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/compacttool"
	"github.com/gantry-dev/gantry/internal/tools/shell"
	"github.com/gantry-dev/gantry/internal/tools/skill"
	"github.com/gantry-dev/gantry/internal/tools/subagent"
	"github.com/gantry-dev/gantry/internal/tools/task"
	"github.com/gantry-dev/gantry/internal/tools/todo"
)

// Options are what the command line says; they win over the config files.
type Options struct {
	Cwd                string
	Provider, Model    string
	PermissionMode     string
	Allow, Deny        []string
	MaxTurns           int
	SystemPrompt       string
	AppendSystemPrompt string
	// Continue resumes the last session of Cwd; Resume names a session (an id or a
	// unique prefix; ResumeLast for the most recent of any folder).
	Continue bool
	Resume   string
	// Store overrides the session database path (tests); empty means the default.
	Store string
	// MCPServers are servers whose tools the session offers, besides the configured
	// ones (ACP clients give them with each session).
	MCPServers []MCPServer
	// LLM, when set, is the model to use instead of the configured provider (tests,
	// and faces that bring their own).
	LLM llm.Provider
}

// ResumeLast asks Resume for the most recent session, whatever its folder.
const ResumeLast = "@last"

// App is a wired session.
type App struct {
	Config   *config.Config
	Agent    *agent.Agent
	Gate     *permission.Engine
	Hooks    *hook.Runner
	Session  *session.Session
	Provider string
	Model    string
	Resumed  bool

	store   *session.Store
	records *session.Pipeline
	tasks   *shell.Tasks
	skills  []skill.Skill
	closer  []func()
}

// New wires a session for the face that renders sink and answers through asker.
func New(opts Options, sink face.Sink, asker face.Asker) (_ *App, err error) {
	a := &App{}
	defer func() {
		if err != nil {
			a.Close()
		}
	}()
	if opts.Cwd == "" {
		if opts.Cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("finding the working directory: %w", err)
		}
	}
	if opts.Cwd, err = filepath.Abs(opts.Cwd); err != nil {
		return nil, err
	}
	cfg, err := config.Load(opts.Cwd)
	if err != nil {
		return nil, err
	}
	a.Config = cfg

	a.Provider, a.Model, err = chooseProvider(opts.Provider, opts.Model, cfg.Provider, cfg.Model)
	if err != nil {
		return nil, err
	}
	provider := opts.LLM
	if provider == nil {
		if provider, err = newProvider(a.Provider); err != nil {
			return nil, err
		}
	}

	modeName := first(opts.PermissionMode, cfg.PermissionMode, string(permission.ModeDefault))
	mode, err := permission.ParseMode(modeName)
	if err != nil {
		return nil, err
	}
	if a.Gate, err = newGate(cfg, mode, opts.Allow, opts.Deny); err != nil {
		return nil, err
	}

	if err := a.openSession(opts); err != nil {
		return nil, err
	}
	memory, err := config.Memory(opts.Cwd)
	if err != nil {
		return nil, err
	}
	env := tool.Env{Cwd: opts.Cwd, SessionID: a.Session.ID()}
	reg, tasks, skills := buildTools(cfg, filepath.Join(filepath.Dir(StorePath(opts)), "tasks", a.Session.ID()))
	a.tasks = tasks
	a.closer = append(a.closer, func() { _ = tasks.Close() })
	reg.Add(subagent.Tool(&spawner{app: a}, tasks))
	a.connectMCP(reg, mcpServers(cfg, opts.MCPServers), opts.Cwd, sink)
	a.skills = skills
	a.Hooks = hook.NewRunner(cfg.Hooks, hook.Base{SessionID: a.Session.ID(), Cwd: opts.Cwd,
		PermissionMode: func() string { return string(a.Gate.Mode()) }})
	addControlTools(reg, a.Gate, asker, a.Hooks)

	maxTurns := opts.MaxTurns
	if maxTurns == 0 {
		maxTurns = cfg.MaxTurns
	}
	records := session.NewPipeline(a.Session)
	a.records = records
	a.closer = append(a.closer, func() { _ = records.Close() })
	system := systemPrompt(first(opts.SystemPrompt, cfg.SystemPrompt), joinNonEmpty(cfg.AppendSystemPrompt, opts.AppendSystemPrompt), opts.Cwd, memory.Text, time.Now())
	system += a.sessionStart(sink)
	a.Agent = &agent.Agent{
		Provider: provider, Tools: reg, Gate: a.Gate, Asker: asker, Sink: sink, Store: records, Env: env,
		Hooks:    hooks{a.Hooks},
		MaxLevel: func() tool.Level { return a.Gate.Mode().MaxLevel() },
		Config: agent.Config{
			Model:            a.Model,
			System:           system,
			MaxTurns:         maxTurns,
			MaxOutput:        cfg.MaxOutput,
			Price:            llm.Cost,
			RefusalHint:      refusalHint,
			ContextWindow:    contextWindow(cfg, a.Model),
			CompactThreshold: cfg.Compact.Threshold,
			Memory:           memory.Text,
			SaveRule:         func(c permission.Call) (string, error) { return a.Gate.SaveRule(cfg.Root(), c) },
		},
	}
	reg.Add(compacttool.Tool(a.Agent))
	todos, board := todo.NewList(records, sink), task.NewBoard(records)
	for _, t := range todo.Tools(todos) {
		reg.Add(t)
	}
	reg.Add(task.Tool(board))
	a.Agent.Config.TodoText, a.Agent.Config.TasksText = todos.Text, board.Text
	if a.Resumed {
		h, err := a.Session.Messages()
		if err != nil {
			return nil, fmt.Errorf("reading session %s: %w", a.Session.ID(), err)
		}
		a.Agent.SetHistory(h)
		if err := a.restoreLists(todos, board, sink); err != nil {
			return nil, err
		}
	}
	return a, nil
}

// StorePath is the session database opts name: Store, else the default.
func StorePath(opts Options) string {
	if opts.Store != "" {
		return opts.Store
	}
	return session.DefaultPath()
}

func (a *App) openSession(opts Options) error {
	st, err := session.Open(StorePath(opts))
	if err != nil {
		return fmt.Errorf("opening the session store: %w", err)
	}
	a.store = st
	switch {
	case opts.Resume == ResumeLast:
		list, err := st.List(1)
		if err != nil {
			return err
		}
		if len(list) == 0 {
			return errors.New("there is no session to resume yet")
		}
		a.Session, err = st.Get(list[0].ID)
		if err != nil {
			return err
		}
		a.Resumed = true
	case opts.Resume != "":
		if a.Session, err = st.Get(opts.Resume); err != nil {
			return err
		}
		a.Resumed = true
	case opts.Continue:
		a.Session, err = st.Last(opts.Cwd)
		if errors.Is(err, session.ErrNotFound) {
			return fmt.Errorf("there is no session in %s to continue", opts.Cwd)
		}
		if err != nil {
			return err
		}
		a.Resumed = true
	default:
		a.Session, err = st.Create(session.Meta{Cwd: opts.Cwd, Provider: a.Provider, Model: a.Model})
		if err != nil {
			return fmt.Errorf("creating a session: %w", err)
		}
	}
	return nil
}

// SetTitle names a new session after its first prompt.
func (a *App) SetTitle(prompt string) {
	if a.Session != nil && !a.Resumed {
		_ = a.Session.SetTitle(session.Title(prompt))
	}
}

// SetModel makes model the one the next requests use, with its context window.
// It must not be called while a turn runs.
func (a *App) SetModel(model string) {
	a.Model, a.Agent.Config.Model = model, model
	a.Agent.Config.ContextWindow = contextWindow(a.Config, model)
}

// DescribeCall says what a stored call acted on, for showing it again: its
// principal argument, the paths it touched and its ACP kind (other, with no
// principal, for a tool this session lacks or arguments it refuses).
func (a *App) DescribeCall(name string, input json.RawMessage) (principal string, paths []string, kind tool.Kind) {
	t, ok := a.Agent.Tools.Lookup(name)
	if !ok {
		return "", nil, tool.KindOther
	}
	if inv, msg := t.Decode(a.Agent.Env, input); msg == "" {
		principal, paths = inv.Principal, inv.Paths
	}
	return principal, paths, t.Kind()
}

// ToolNames lists the tools declared now.
func (a *App) ToolNames() []string {
	return a.Agent.Tools.Names(a.Gate.Mode().MaxLevel())
}

// Close stops background tasks and closes the store. It is safe to call twice.
func (a *App) Close() {
	for i := len(a.closer) - 1; i >= 0; i-- {
		a.closer[i]()
	}
	a.closer = nil
	if a.store != nil {
		_ = a.store.Close()
		a.store = nil
	}
}

// refusalHint names the flag that would have allowed a call print mode could not ask for.
func refusalHint(c permission.Call) string {
	switch c.Level {
	case tool.LevelWrite:
		return fmt.Sprintf("The user can allow it with --permission-mode accept-edits or --allow '%s'.", c.Tool)
	default:
		return fmt.Sprintf("The user can allow it with --allow '%s:<regex>' or --permission-mode yolo.", c.Tool)
	}
}

func joinNonEmpty(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "\n\n" + b
}

// ExpandPrompt resolves the @file:, @path and @skill: references of a prompt the
// person typed (see package refs); notes says, one line each, what could not be
// resolved. Only a person's prompt is expanded: the model reads files through tools,
// under the permission gate.
func (a *App) ExpandPrompt(prompt string) (expanded string, notes []string) {
	r := refs.Expand(prompt, refs.Options{Cwd: a.Agent.Env.Cwd, MaxOutput: a.Config.MaxOutput, Skills: a.skills})
	return r.Prompt, r.Notes
}

// restoreLists puts back the todo list and the task board of a resumed session, and
// shows the list.
func (a *App) restoreLists(todos *todo.List, board *task.Board, sink face.Sink) error {
	payloads := func(kind string) ([]json.RawMessage, error) {
		evs, err := a.Session.Events(kind)
		out := make([]json.RawMessage, len(evs))
		for i, e := range evs {
			out[i] = e.Payload
		}
		return out, err
	}
	p, err := payloads(todo.EventKind)
	if err != nil {
		return fmt.Errorf("reading the todo list: %w", err)
	}
	todos.Restore(todo.FromEvents(p))
	if p, err = payloads(task.EventKind); err != nil {
		return fmt.Errorf("reading the tasks: %w", err)
	}
	board.Restore(task.FromEvents(p))
	if items := todos.Items(); len(items) > 0 && sink != nil {
		sink(face.TodoList{Items: items})
	}
	return nil
}

// contextWindow is the model's context window: the config's, else gantry's table.
func contextWindow(cfg *config.Config, model string) int {
	if cfg.Compact.Window > 0 {
		return cfg.Compact.Window
	}
	return llm.ContextWindow(model)
}

// BackgroundTasks lists the commands of the session's background tasks still running.
func (a *App) BackgroundTasks() []string {
	if a.tasks == nil {
		return nil
	}
	return a.tasks.Running()
}

// Skills lists the skills the session found.
func (a *App) Skills() []skill.Skill { return a.skills }
