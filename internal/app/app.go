// Package app wires gantry together: configuration, the model provider, the tools,
// the permission gate and the session store become one App that a face drives.
//
// An App has a lifecycle a face follows: New wires a session and sends nothing; Start,
// once the face listens, runs the SessionStart hooks, connects the MCP servers,
// announces the session (face.SessionStarted) and restores a resumed session's lists;
// Run runs prompts; Close ends the session and says what failed. Faces change the
// session only through the App's methods (SetMode, SetModel, an answer to a question)
// and learn every change from events (face.ModeChanged, face.ModelChanged).
package app

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/structural"
	"github.com/gantry-dev/gantry/internal/tools/task"
	"github.com/gantry-dev/gantry/internal/tools/todo"
	"github.com/gantry-dev/gantry/internal/tools/toolsearch"
	"github.com/gantry-dev/gantry/internal/tools/vibe"
)

// Options are what the command line says; they win over the config files.
type Options struct {
	Cwd             string
	Provider, Model string
	PermissionMode  string
	Allow, Deny     []string
	// Sandbox is --sandbox: nil leaves it to the config (and then to the mode).
	Sandbox            *bool
	MaxTurns           int
	SystemPrompt       string
	AppendSystemPrompt string
	// Continue resumes the last session of Cwd; Resume names a session (an id or a
	// unique prefix; ResumeLast for the most recent of any folder).
	Continue bool
	Resume   string
	// Fork, with Continue or Resume, goes on in a new session copied from the one
	// named (which may be running elsewhere) instead of in that one.
	Fork bool
	// Store overrides the session database path (tests); empty means the default.
	Store string
	// MCPServers are servers whose tools the session offers, besides the configured
	// ones (ACP clients give them with each session).
	MCPServers []MCPServer
	// Trust is --trust: the folder's project files (.mcp.json, Claude Code's project
	// settings, .gantry) run without the question, for this session.
	Trust bool
	// LLM, when set, is the model to use instead of the configured provider (tests,
	// and faces that bring their own).
	LLM llm.Provider
	// Resources is the process's pool of live resources, shared by every session of
	// the process (an ACP connection's, the sessions a terminal UI switches between);
	// nil: the App has its own, closed with it.
	Resources *resource.Pool
	// Editor and Terminals are a face's file access and live terminals (ACP); nil
	// elsewhere.
	Editor    tool.Editor
	Terminals tool.Terminals
	// ToolServer: the session serves the tool calls of another program's agent (gantry
	// mcp), not a model's. It needs no model (prompt hooks fail when none is
	// configured), keeps its records only while it lives (in a folder of its own,
	// removed at Close: it is not one of the sessions to list or resume), and connects
	// no MCP servers of the config.
	ToolServer bool
	// NoModel: the session runs no turn (gantry rewind): it opens without a configured
	// model provider.
	NoModel bool
	// Vibe starts the session in vibe mode: the vibe tools (background workers) are
	// declared (SetVibe turns it on and off).
	Vibe bool
	// Preview: the session is only looked at, never started (gantry prompt, gantry
	// tool list): it keeps its records in a folder of its own, removed at Close, and
	// builds no model client (it calls none), so that it needs no key.
	Preview bool
	// OnePrompt: the face runs one prompt and ends (print mode): an asyncRewake
	// hook's wake that comes once the turn is over starts no turn (see rewake.go).
	OnePrompt bool
	// CheckModel, when set, vets the model chosen before a session is made: its error
	// is a usage error (print mode's --max-cost refuses a model without a price).
	CheckModel func(model string) error
}

// ResumeLast asks Resume for the most recent session, whatever its folder.
const ResumeLast = "@last"

// App is one wired session. Its fields are grouped by job in the parts below
// (appparts.go); the parts are embedded, so a field is reached as a.reg, a.sess, ….
type App struct {
	opts Options
	cfg  *config.Config

	modelSettings  // the loop, the model's provider and what its system prompt is made of
	sessionRecords // the session's identity and its store
	processRules   // the gate, the folder's trust and the rules of every process it starts
	hookState      // the hooks and what SessionStart hooks exported
	toolState      // the tool registry, its toolsets and what they keep for the session
	promptNotes    // what goes to the model with the next prompt, not the system prompt
	faceWiring     // the face's sink and asker
	sessionPhase   // where the session is: started, a turn running, ended, closed

	// wake is what asyncRewake hooks said, waiting for the model (rewake.go).
	wake wakeState
	// cmds is what the session keeps of the person's custom slash commands.
	cmds commandState

	// mu guards the fields marked (a.mu).
	mu sync.Mutex
}

// New wires a session: it reads the config, picks the provider, builds the gate, the
// tools and the store's session. It sends no event and runs no hook; Start does,
// once the face listens.
func New(opts Options) (_ *App, err error) {
	a := &App{opts: opts}
	a.wake.ctx, a.wake.stop = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
			a.dropEarlyStore()
			_ = a.Close()
		}
	}()
	if opts.Cwd == "" {
		if opts.Cwd, err = os.Getwd(); err != nil {
			return nil, fmt.Errorf("finding the working directory: %w", err)
		}
	}
	if opts.Cwd, err = filepath.Abs(tool.ExpandHome(opts.Cwd)); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(opts.Cwd); err != nil || !fi.IsDir() {
		return nil, usageErrorf("the working folder %s is not an existing folder", opts.Cwd)
	}
	a.opts.Cwd = opts.Cwd
	trustFile := trustPath(opts)
	if opts.ToolServer || opts.Preview {
		if a.scratch, err = os.MkdirTemp("", "gantry-serve-"); err != nil {
			return nil, fmt.Errorf("making the session's folder: %w", err)
		}
		opts.Store = filepath.Join(a.scratch, "sessions.db")
		a.opts.Store = opts.Store
	}
	a.openStoreEarly(StorePath(opts))
	if a.cfg, err = config.LoadHeld(opts.Cwd); err != nil {
		return nil, err
	}
	if err := a.folderTrust(trustFile); err != nil {
		return nil, err
	}
	cfg := a.cfg
	model := ""
	provider := opts.LLM
	if a.provider, model, err = chooseProvider(opts.Provider, opts.Model, cfg); err != nil {
		if !(opts.ToolServer || opts.NoModel || opts.Preview) || !errors.Is(err, ErrNoProvider) || provider != nil {
			return nil, err
		}
		provider, a.provider = noModel{}, "none"
	}
	if opts.CheckModel != nil {
		if err := opts.CheckModel(model); err != nil {
			return nil, &UsageError{err}
		}
	}
	if provider == nil && opts.Preview {
		// A preview calls no model (it needs no key) but shows what the chosen one
		// would be sent.
		provider = noModel{searches: a.provider == "anthropic" || a.provider == "openai"}
	}
	if provider == nil {
		base, _ := baseURLFor(a.provider, cfg)
		if provider, err = newProvider(a.provider, base, timeoutsOf(cfg), cfg); err != nil {
			return nil, err
		}
	}
	if a.gate, err = newGate(cfg, opts, a.trust.Trusted()); err != nil {
		return nil, err
	}
	if why := a.ModeRefused(a.gate.Mode()); why != "" {
		a.gate.SetMode(permission.ModeDefault)
		a.yoloRefused = why + "; the session starts in default"
	}
	a.pool = opts.Resources
	if a.pool == nil {
		a.pool, a.ownPool = resource.NewPool(nil), true
	}
	a.scope = a.pool.Child(resource.Session)
	if err := a.openSession(opts, model); err != nil {
		return nil, err
	}
	memory, err := config.Memory(opts.Cwd)
	if err != nil {
		return nil, err
	}
	a.memory = memory
	nested := config.NewNested(opts.Cwd, memory)
	a.nested = nested
	maxTurns := opts.MaxTurns
	if maxTurns == 0 {
		maxTurns = cfg.MaxTurns
	}
	a.records = session.NewPipeline(a.sess)
	transcript, freshTranscript := openTranscript(transcriptPath(a.opts, a.sess.ID()), a.sess.ID(), opts.Cwd,
		func() string { return a.agent.Config.Model })
	a.transcript = transcript
	a.envDir = filepath.Join(filepath.Dir(StorePath(a.opts)), "session-env", a.sess.ID())
	a.judge = execJudge(a.gate)
	a.sandbox = newSandboxer(cfg, opts.Sandbox, a.gate)
	a.sandbox.store = filepath.Dir(StorePath(a.opts))
	a.policy = newPolicy(cfg, opts, a.judge, a.sandbox, a.gate, a.env.get)
	a.hooks = hook.NewRunner(cfg.Hooks, hook.Base{SessionID: a.sess.ID(), Cwd: opts.Cwd,
		PermissionMode: func() string { return string(a.gate.Mode()) }, Policy: a.policy,
		TranscriptPath: a.transcript.path, Model: a.askModel, EnvDir: a.envDir, Rewake: a.rewake, Later: a.hookLater})
	a.todos, a.board = todo.NewList(a.records, a.emit), task.NewBoard(a.records)
	a.staged = structural.NewStaged(a.records)
	a.vibe = vibe.New(vibe.Options{Make: a.newWorker, MaxOutput: cfg.MaxOutput,
		Notify: func(text string) { a.emit(face.Notice{Text: text, Info: true}) },
		Warn:   func(text string) { a.emit(face.Notice{Text: text}) }})
	a.vibeOn.Store(opts.Vibe)
	a.agent = &agent.Agent{
		Provider: provider, Gate: a.gate, Asker: &a.asker, Sink: a.emit, Store: transcribing{a.records, a.transcript},
		Env:          tool.Env{Cwd: opts.Cwd, SessionID: a.sess.ID(), Editor: opts.Editor, Terminals: opts.Terminals},
		Hooks:        hooks{a.hooks},
		Nested:       nested,
		MaxLevel:     func() tool.Level { return a.gate.Mode().MaxLevel() },
		BeforeChange: a.beforeChange,
		Pending:      a.takeWakes,
		Config: agent.Config{
			Model:            model,
			System:           systemPrompt(first(opts.SystemPrompt, cfg.SystemPrompt), joinNonEmpty(cfg.AppendSystemPrompt, opts.AppendSystemPrompt), opts.Cwd, memory.Text),
			MaxTurns:         maxTurns,
			MaxOutput:        cfg.MaxOutput,
			Price:            llm.Cost,
			RefusalHint:      refusalHint,
			ContextWindow:    contextWindow(cfg, model),
			CompactThreshold: cfg.Compact.Threshold,
			Memory:           memory.Text,
			SaveRule: func(c permission.Call, g permission.Grant) (string, error) {
				file, err := a.gate.SaveGrant(cfg.Root(), c, g)
				if err == nil {
					err = a.rekeepTrust() // the rules file is one of the folder's trusted files
				}
				return file, err
			},
			TodoText:  a.todos.Text,
			TasksText: a.board.Text,
			Defer:     cfg.Tools.Defer,
			Search:    cfg.Tools.Search,
			CacheKey:  a.sess.ID(),
		},
	}
	if opts.Preview {
		a.asker.set(someone{}) // shown as a session with a person at it
	}
	a.keepOutputs()
	a.spawner = &spawner{app: a}
	a.loadAgents(a.trust.Trusted())
	a.reg, a.shell, a.skills, a.skillNotes = buildTools(a.sessionDeps())
	a.agentNotes = append(a.agentNotes, agentToolNotices(a.Agents(), a.reg)...)
	a.agent.Tools = a.reg
	a.agent.Config.ToolSearch, _ = a.reg.Find(toolsearch.Name)
	a.gate.SetFileTools(fileTools(a.reg))
	if err := checkRuleTools(a.gate, a.reg); err != nil {
		return nil, err
	}
	if a.resumed {
		r, err := a.sess.Resume()
		if err != nil {
			return nil, fmt.Errorf("reading session %s: %w", a.sess.ID(), err)
		}
		a.agent.SetHistory(r.Messages)
		a.toldDate = lastToldDate(r.Messages)
		for _, m := range r.Messages { // the nested memory files given are given once a session
			for _, b := range m.Content {
				nested.Restore(b.Text)
			}
		}
		a.unfinished = r.Unfinished
		if freshTranscript {
			// A session from before transcripts, or a fork: its transcript starts
			// with the conversation so far.
			for _, m := range r.Messages {
				a.transcript.message(m, nil)
			}
		}
		if r.Results != nil {
			// Stored before the next request: what the model is told of the calls
			// it never had results of is what a later resume reads.
			_ = a.agent.Store.AppendMessage(*r.Results) // an error comes back with the next record
		}
	}
	return a, nil
}

// askModel asks the session's model one question for a prompt hook: no tools, no
// history; the tokens count in the session's.
func (a *App) askModel(ctx context.Context, system, prompt string) (string, error) {
	model := a.agent.Config.Model
	resp, err := a.agent.Provider.Stream(ctx, llm.Request{
		Model: model, System: system, MaxTokens: 1024,
		Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: prompt}}}},
	}, func(llm.Delta) {})
	if resp.Usage != (llm.Usage{}) {
		a.agent.AddUsage(resp.Usage, llm.Cost(model, resp.Usage))
	}
	if err != nil {
		return "", err
	}
	return resp.Message.Text(), nil
}

// refusalHint names the flag that would have allowed a call print mode could not ask for.
func refusalHint(c permission.Call, v permission.Verdict) string {
	if v.AllowRule != "" && v.EveryMode {
		return fmt.Sprintf("The user can allow it with --allow '%s'.", v.AllowRule)
	}
	if v.AllowRule != "" {
		return fmt.Sprintf("The user can allow it with --allow '%s' or --permission-mode yolo.", v.AllowRule)
	}
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

// contextWindow is the model's context window: the config's, else gantry's table.
func contextWindow(cfg *config.Config, model string) int {
	if cfg.Compact.Window > 0 {
		return cfg.Compact.Window
	}
	return llm.ContextWindow(model)
}
