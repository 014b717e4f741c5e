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
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/refs"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/shell"
	"github.com/gantry-dev/gantry/internal/tools/skill"
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
}

// ResumeLast asks Resume for the most recent session, whatever its folder.
const ResumeLast = "@last"

// App is one wired session.
type App struct {
	opts    Options
	cfg     *config.Config
	agent   *agent.Agent
	gate    *permission.Engine
	judge   contain.Judge // the exec supervisor's, nil when no deny rule names bash
	sandbox *sandboxer    // the sandbox of bash commands, as the mode and config say
	hooks   *hook.Runner
	// policy is the session's rules for every process it starts (see contain.Policy).
	policy *contain.Policy
	// lostDone: the notice of what the sandbox cannot guarantee here has been sent.
	lostDone sync.WaitGroup
	// specsWarm: the tools' schemas are derived (warmspecs.go).
	specsWarm sync.WaitGroup

	// env is what SessionStart hooks exported (CLAUDE_ENV_FILE) for bash commands;
	// envDir holds their files. transcript is the file of transcript_path.
	env        sessionEnv
	envDir     string
	transcript *transcript

	sess    *session.Session
	store   *session.Store
	lease   *session.Lease // this process is the session's one writer
	records *session.Pipeline
	memory  config.MemoryFiles // read at the start; subagents add nested ones of their own
	nested  *config.Nested     // the memory files the main agent's calls added since (/memory)
	style   styleState         // the output style at the end of the system prompt (outputstyle.go)
	// unfinished are the calls of a resumed session's last response that have no
	// stored result (said once the face listens).
	unfinished []session.Unfinished
	// storeFailed is the last store error a turn stopped on: the next turn starts
	// from what is stored.
	storeFailed error
	reg         *tool.Registry
	pool        *resource.Pool
	ownPool     bool
	shell       *shell.Set
	todos       *todo.List
	board       *task.Board
	staged      *structural.Staged // ast_edit's changes, staged until resolve
	skills      *skill.Set
	skillNotes  []string   // what the skill catalogue could not use (said by Start)
	agentDefs   []AgentDef // the agent definitions the agent tool offers (a.mu)
	agentNotes  []string   // what their files could not give, said by Start (a.mu)
	spawner     *spawner   // the agent tool's subagents
	yoloRefused string     // the yolo mode asked for at the start was refused (said by Start)
	provider    string
	resumed     bool
	asker       askerRef
	mcp         mcpBoard // the MCP servers' states
	scratch     string   // a ToolServer's or a Preview's folder (its store, transcript, tasks), removed at Close
	vibe        *vibe.Board
	vibeOn      atomic.Bool
	cps         checkpoints // the project's checkpoints, kept by this session
	cpSeq       int64       // the stored conversation's last message when the running prompt came
	running     bool        // a turn runs (a.mu)
	shellN      int         // the person's !commands (a.mu)
	shellNotes  []string    // their inputs and outputs, for the next prompt (a.mu)
	// startNotes are what the SessionStart hooks added and the skills a trust
	// brought (skills.go), for the next prompt (a.mu);
	// toldDate the date the model was last told (a.mu). Both go with a prompt, not
	// into the system prompt, so that the request's prefix stays the same across
	// days and resumes.
	startNotes []string
	toldDate   string
	// wake is what asyncRewake hooks said, waiting for the model (rewake.go).
	wake wakeState

	// trust is the folder's trust: while not trusted, its project files' servers,
	// hooks, env and allow rules are held back, and Start asks.
	trust      FolderTrust
	trustLater atomic.Bool // the trust is asked at the first prompt (face.TrustInTurn)

	// cmds is what the session keeps of the person's custom slash commands.
	cmds commandState

	mu       sync.Mutex
	sink     face.Sink
	started  bool
	ended    bool // the SessionEnd hooks ran
	closed   bool
	modeNote bool // the person changed the mode since the model was last told
	vibeNote bool // the person turned vibe mode on or off since the model was last told
}

// New wires a session: it reads the config, picks the provider, builds the gate, the
// tools and the store's session. It sends no event and runs no hook; Start does,
// once the face listens.
func New(opts Options) (_ *App, err error) {
	a := &App{opts: opts}
	a.wake.ctx, a.wake.stop = context.WithCancel(context.Background())
	defer func() {
		if err != nil {
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
	a.warmSpecs()
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

// Start begins the session for a face that now listens: sink receives every event
// from here on, asker answers every question. It connects the MCP servers, runs the
// SessionStart hooks, sends face.SessionStarted, then what went wrong on the way
// (a server that failed, a hook that failed: notices, never fatal), and restores a
// resumed session's todo list and tasks. Start is called once.
func (a *App) Start(ctx context.Context, sink face.Sink, asker face.Asker) error {
	a.mu.Lock()
	if a.started || a.closed {
		a.mu.Unlock()
		return errors.New("the session was started already")
	}
	a.started, a.sink = true, sink
	a.mu.Unlock()
	a.asker.set(asker)
	if face.Nobody(asker) && !a.opts.ToolServer {
		a.agent.Config.System += nobodyNote
	}

	var notices []string
	if later, ok := asker.(face.TrustInTurn); ok && later.TrustInTurn() && !a.trust.Trusted() && !a.opts.ToolServer {
		a.trustLater.Store(true) // asked at the first prompt (trust.go)
	} else {
		notices = a.settleTrust(ctx, asker)
	}
	notices = append(notices, a.startOutputStyle()...)
	notices = append(notices, a.connectMCP(ctx)...)
	notices = append(notices, mcpRuleNotices(a.gate, a.reg)...)
	notices = append(notices, a.skillNotes...)
	a.mu.Lock()
	notices = append(notices, a.agentNotes...)
	a.mu.Unlock()
	if a.yoloRefused != "" {
		notices = append(notices, a.yoloRefused)
	}
	// What the sandbox cannot guarantee here is said once, when the probe is done:
	// probing starts a helper and bubblewrap, which a session's start need not wait
	// for (its first command would).
	a.lostDone.Add(1)
	go func() {
		defer a.lostDone.Done()
		for _, n := range a.sandbox.lost() {
			a.emit(face.Notice{Text: n})
		}
	}()
	context, warnings := a.sessionStart(ctx)
	a.noteStart(context)
	notices = append(notices, warnings...)
	for _, f := range a.cfg.Claude.Files {
		for _, s := range f.Skipped {
			notices = append(notices, f.Path+": "+s)
		}
	}
	a.emit(face.SessionStarted{SessionID: a.sess.ID(), Resumed: a.resumed, Provider: a.provider, Model: a.agent.Config.Model,
		Mode: a.gate.Mode(), Cwd: a.opts.Cwd, Tools: a.ToolNames(), ContextWindow: a.agent.Config.ContextWindow})
	for _, n := range notices {
		a.emit(face.Notice{Text: n})
	}
	if len(a.unfinished) > 0 {
		a.emit(face.Notice{Text: unfinishedNotice(a.unfinished)})
	}
	a.transcript.listen(func(text string) { a.emit(face.Notice{Text: text}) })
	a.warmUp()
	if a.resumed {
		if err := a.restoreLists(); err != nil {
			return err
		}
	}
	return nil
}

// emit sends an event to the face, once there is one.
func (a *App) emit(e face.Event) {
	a.mu.Lock()
	sink := a.sink
	a.mu.Unlock()
	if sink != nil {
		sink(e)
	}
}

// Run sends one prompt (with content a face attached after it: images, documents)
// and drives the loop to the model's final answer; it returns the TurnEnded it sent.
// One turn runs at a time: a prompt waits for a turn an asyncRewake hook started.
func (a *App) Run(ctx context.Context, prompt string, attached []llm.Block) face.TurnEnded {
	a.wake.turn.Lock()
	defer a.wake.turn.Unlock()
	return a.runTurn(ctx, prompt, attached)
}

// runTurn is Run, with the turn's lock held.
func (a *App) runTurn(ctx context.Context, prompt string, attached []llm.Block) face.TurnEnded {
	a.mu.Lock()
	started := a.started && !a.closed
	note, vibeNote := a.modeNote, a.vibeNote
	a.modeNote, a.vibeNote = false, false
	shellNotes := a.shellNotes
	a.shellNotes = nil
	a.mu.Unlock()
	for _, n := range shellNotes {
		attached = append(attached, llm.Block{Type: llm.BlockText, Text: n})
	}
	if !started {
		end := face.TurnEnded{StopReason: "error", Err: errors.New("the session is not started (a face must call Start) or is closed")}
		return end
	}
	if a.trustLater.Swap(false) {
		a.noteStart(a.trustInTurn(ctx))
	}
	prompt, undoCommand := a.runCommand(ctx, prompt)
	defer undoCommand()
	attached = append(attached, a.reminders(time.Now())...)
	if note {
		m := a.gate.Mode()
		attached = append(attached, llm.Block{Type: llm.BlockText,
			Text: fmt.Sprintf("<system-reminder>The user switched the permission mode to %s: %s.</system-reminder>", m, m.About())})
	}
	if vibeNote {
		text := "<system-reminder>The user turned vibe mode on: you can hand pieces of work to background workers (vibe_spawn, by tier: fast for mechanical work with a clear spec, good for design, judgement and review), follow them (vibe_list, vibe_wait), steer them (vibe_send) and stop them (vibe_kill).</system-reminder>"
		if !a.Vibe() {
			text = "<system-reminder>The user turned vibe mode off: the vibe tools are gone; workers still running finish by themselves.</system-reminder>"
		}
		attached = append(attached, llm.Block{Type: llm.BlockText, Text: text})
	}
	a.mu.Lock()
	failed := a.storeFailed
	a.mu.Unlock()
	if failed != nil {
		// The last turn stopped on the store: what it did after the failing record
		// is not stored. Go on from what is, as --continue would.
		r, err := a.sess.Resume()
		if err != nil {
			return face.TurnEnded{StopReason: "error", Err: fmt.Errorf("reading session %s again after the store failed: %w", a.sess.ID(), err)}
		}
		a.agent.SetHistory(r.Messages)
		a.toldDate = lastToldDate(r.Messages)
		if r.Results != nil {
			_ = a.agent.Store.AppendMessage(*r.Results)
		}
		if len(r.Unfinished) > 0 {
			a.emit(face.Notice{Text: unfinishedNotice(r.Unfinished)})
		}
	}
	a.cps.cur = prompt
	if a.records.Flush() == nil {
		a.cpSeq, _ = a.sess.LastSeq()
	}
	a.mu.Lock()
	a.running = true
	a.mu.Unlock()
	end := a.agent.RunWith(ctx, prompt, attached)
	a.mu.Lock()
	a.running = false
	a.mu.Unlock()
	a.afterTurn()
	a.mu.Lock()
	a.storeFailed = end.StoreErr
	a.mu.Unlock()
	return end
}

// SetTitle names a new session after its first prompt.
func (a *App) SetTitle(prompt string) {
	if a.sess != nil && !a.resumed && len(a.agent.History()) == 0 {
		a.agent.StoreError(a.sess.SetTitle(session.Title(prompt)))
	}
}

// SetModel makes model the one the next requests use, with its context window, and
// says so (face.ModelChanged). It must not be called while a turn runs.
func (a *App) SetModel(model string) {
	if model == a.agent.Config.Model {
		return
	}
	a.agent.Config.Model = model
	a.agent.Config.ContextWindow = contextWindow(a.cfg, model)
	a.emit(face.ModelChanged{Model: model, ContextWindow: a.agent.Config.ContextWindow})
}

// SetMode switches the permission mode for the person, says so (face.ModeChanged) and
// tells the model with its next prompt.
func (a *App) SetMode(m permission.Mode) {
	if a.changeMode(m) {
		a.mu.Lock()
		a.modeNote = true
		a.mu.Unlock()
	}
}

// ModeRefused says why the session may not switch to mode m (yolo, when a Claude
// Code settings file has disableBypassPermissionsMode: "disable"), or "".
func (a *App) ModeRefused(m permission.Mode) string {
	if m != permission.ModeYolo || a.cfg.Claude.NoYolo == "" {
		return ""
	}
	return fmt.Sprintf("the yolo mode is disabled by disableBypassPermissionsMode in %s", a.cfg.Claude.NoYolo)
}

// changeMode switches the mode and sends ModeChanged when it changed; a mode that is
// refused (ModeRefused) is said and not taken.
func (a *App) changeMode(m permission.Mode) bool {
	if why := a.ModeRefused(m); why != "" {
		a.emit(face.Notice{Text: why})
		return false
	}
	prev := a.gate.SetMode(m)
	if prev == m {
		return false
	}
	a.emit(face.ModeChanged{Mode: m, Previous: prev})
	return true
}

// DescribeCall is what faces show of a stored call of tool name with input (a tool
// this session lacks, or arguments it refuses, show as tool.Unknown).
func (a *App) DescribeCall(name string, input json.RawMessage) tool.Call {
	t, ok := a.reg.Find(name)
	if !ok {
		return tool.Unknown(name)
	}
	inv, msg := t.Decode(a.agent.Env, input)
	if msg != "" {
		inv = tool.Invocation{}
	}
	return tool.Describe(t, inv)
}

// ToolNames lists the tools declared now.
func (a *App) ToolNames() []string {
	return a.reg.Names(a.gate.Mode().MaxLevel())
}

// The reasons a session ends, for EndSession (SessionEnd's "reason").
const (
	EndClear           = hook.EndClear           // the person cleared the conversation
	EndResume          = hook.EndResume          // the person switched to another session
	EndPromptInputExit = hook.EndPromptInputExit // the person quit
	EndOther           = hook.EndOther           // anything else
)

// EndSession runs the SessionEnd hooks, once, with reason (EndClear, …), before the
// session's tools and store close: bounded by their own timeouts (1.5 seconds for a
// hook that gives none, 60 at most), never by a face's context. It returns what the
// person should read — failures, and the stderr of a hook that exited 2 — one
// sentence each, for the face to show as it can. Only a started session ends so;
// Close runs them with EndOther when the face did not.
func (a *App) EndSession(reason string) []string {
	a.mu.Lock()
	if !a.started || a.ended {
		a.mu.Unlock()
		return nil
	}
	a.ended = true
	a.mu.Unlock()
	if !a.hooks.Has(hook.SessionEnd) {
		return nil
	}
	o := a.hooks.Run(context.Background(), hook.SessionEnd, reason, map[string]any{"reason": reason})
	var out []string
	for _, w := range o.Warnings {
		out = append(out, "SessionEnd hook: "+w)
	}
	if o.Block && o.Reason != "" {
		out = append(out, "SessionEnd hook: "+o.Reason)
	}
	return out
}

// Close ends the session: the SessionEnd hooks run (reason EndOther, unless the face
// ran them with EndSession), the session's tools are closed (background tasks killed),
// the records flushed, the store closed, and the resources of an App that owns its
// pool closed, newest first. It returns what failed, joined; it is safe to call twice.
func (a *App) Close() error {
	a.mu.Lock()
	if a.closed {
		a.mu.Unlock()
		return nil
	}
	a.closed = true
	a.mu.Unlock()
	a.lostDone.Wait()
	a.specsWarm.Wait()
	a.stopWakes() // a turn an asyncRewake hook started is stopped; later wakes are dropped
	for _, w := range a.EndSession(EndOther) {
		a.emit(face.Notice{Text: w})
	}
	a.hooks.Close() // the async hooks still running are stopped
	if a.vibe != nil {
		if n := a.vibe.Running(); n > 0 {
			a.emit(face.Notice{Text: fmt.Sprintf("the session ends: %d vibe worker(s) still running are stopped", n)})
		}
	}
	a.stopWarmUp()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var errs []error
	if a.reg != nil {
		errs = append(errs, a.reg.Close(ctx))
	}
	if a.records != nil {
		if err := a.records.Close(); err != nil {
			errs = append(errs, fmt.Errorf("storing the session's last records: %w", err))
		}
	}
	if a.transcript != nil {
		a.transcript.close()
	}
	if a.envDir != "" {
		_ = os.RemoveAll(a.envDir) // the SessionStart hooks' exports; the next start writes them again
	}
	if a.lease != nil {
		// A lease that cannot be given up (the disk is full) goes stale when this
		// process ends; said unless the store's failure was said already.
		a.mu.Lock()
		said := a.storeFailed != nil
		a.mu.Unlock()
		if err := a.lease.Release(); err != nil && !said {
			errs = append(errs, err)
		}
	}
	if a.store != nil {
		if err := a.store.Close(); err != nil {
			errs = append(errs, fmt.Errorf("closing the session store: %w", err))
		}
	}
	if a.ownPool && a.pool != nil {
		errs = append(errs, a.pool.Close(ctx))
	}
	if a.scratch != "" {
		if err := os.RemoveAll(a.scratch); err != nil {
			errs = append(errs, fmt.Errorf("removing the session's folder: %w", err))
		}
	}
	return errors.Join(errs...)
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

// sessionEnv is what SessionStart hooks exported through CLAUDE_ENV_FILE, for the
// session's processes (after the env of Claude settings, see newPolicy).
type sessionEnv struct {
	mu   sync.Mutex
	vars []string
}

func (e *sessionEnv) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.vars...)
}

func (e *sessionEnv) add(vars []string) {
	e.mu.Lock()
	e.vars = append(e.vars, vars...)
	e.mu.Unlock()
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

// ExpandPrompt resolves the @file:, @path and @skill: references of a prompt the
// person typed (see package refs), or marks "/name args" naming a custom command for
// Run to expand (see commands.go); "/name args" naming a skill is @skill:name (see
// skillCommand). notes says, one line each, what could not be resolved. Only a
// person's prompt is expanded: the model reads files through tools, under the
// permission gate.
func (a *App) ExpandPrompt(prompt string) (expanded string, notes []string) {
	if a.expandCommand(prompt) {
		return prompt, nil // "/name args": Run expands the custom command
	}
	r := refs.Expand(a.skillCommand(prompt), refs.Options{Cwd: a.opts.Cwd, MaxOutput: a.cfg.MaxOutput, Skills: a.skills.List()})
	return r.Prompt, r.Notes
}

// restoreLists puts back the todo list and the task board of a resumed session, and
// shows the list.
func (a *App) restoreLists() error {
	payloads := func(kind string) ([]json.RawMessage, error) {
		evs, err := a.sess.Events(kind)
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
	a.todos.Restore(todo.FromEvents(p))
	if p, err = payloads(task.EventKind); err != nil {
		return fmt.Errorf("reading the tasks: %w", err)
	}
	a.board.Restore(task.FromEvents(p))
	evs, err := a.sess.Events(structural.StagedEventKind, structural.ResolvedEventKind)
	if err != nil {
		return fmt.Errorf("reading the staged structural changes: %w", err)
	}
	kinds, bodies := make([]string, len(evs)), make([]json.RawMessage, len(evs))
	for i, e := range evs {
		kinds[i], bodies[i] = e.Kind, e.Payload
	}
	a.staged.Restore(kinds, bodies)
	if items := a.todos.Items(); len(items) > 0 {
		a.emit(face.TodoList{Items: items})
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
