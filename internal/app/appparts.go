package app

import (
	"sync"
	"sync/atomic"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/shell"
	"github.com/gantry-dev/gantry/internal/tools/skill"
	"github.com/gantry-dev/gantry/internal/tools/structural"
	"github.com/gantry-dev/gantry/internal/tools/task"
	"github.com/gantry-dev/gantry/internal/tools/todo"
	"github.com/gantry-dev/gantry/internal/tools/vibe"
)

// The parts of an App, each with one job. Fields marked (a.mu) are guarded by the
// App's mu.

// modelSettings is the loop, the model and what its system prompt is made of.
type modelSettings struct {
	// agent is the loop: the model, its provider and settings are its Config.
	agent    *agent.Agent
	provider string             // the provider's name ("anthropic", "openai", "none")
	memory   config.MemoryFiles // read at the start; subagents add nested ones of their own
	nested   *config.Nested     // the memory files the main agent's calls added since (/memory)
	style    styleState         // the output style at the end of the system prompt (outputstyle.go)
}

// sessionRecords is the session's identity and its store.
type sessionRecords struct {
	sess    *session.Session
	store   *session.Store
	lease   *session.Lease // this process is the session's one writer
	records *session.Pipeline
	resumed bool
	// transcript is the file of transcript_path.
	transcript *transcript
	// unfinished are the calls of a resumed session's last response that have no
	// stored result (said once the face listens).
	unfinished []session.Unfinished
	// storeFailed is the last store error a turn stopped on: the next turn starts
	// from what is stored.
	storeFailed error
	scratch     string // a ToolServer's or a Preview's folder (its store, transcript, tasks), removed at Close
	// storeEarly is the store being opened while New does the rest (sessions.go).
	storeEarly chan storeOpened
}

// processRules is the gate, the folder's trust and the rules of every process the
// session starts.
type processRules struct {
	gate    *permission.Engine
	judge   contain.Judge // the exec supervisor's, nil when no deny rule names bash
	sandbox *sandboxer    // the sandbox of bash commands, as the mode and config say
	// policy is the session's rules for every process it starts (see contain.Policy).
	policy *contain.Policy
	// lostDone: the notice of what the sandbox cannot guarantee here has been sent.
	lostDone    sync.WaitGroup
	yoloRefused string // the yolo mode asked for at the start was refused (said by Start)

	// trust is the folder's trust: while not trusted, its project files' servers,
	// hooks, env and allow rules are held back, and Start asks.
	trust      FolderTrust
	trustLater atomic.Bool // the trust is asked at the first prompt (face.TrustInTurn)
}

// hookState is the hooks and what SessionStart hooks exported.
type hookState struct {
	hooks *hook.Runner
	// env is what SessionStart hooks exported (CLAUDE_ENV_FILE) for bash commands;
	// envDir holds their files.
	env    sessionEnv
	envDir string
}

// toolState is the tool registry, its toolsets and what they keep for the session.
type toolState struct {
	reg        *tool.Registry
	pool       *resource.Pool // the process's resources (language servers, MCP connections)
	scope      *resource.Pool // the session's, a child of pool, closed by Close
	ownPool    bool
	shell      *shell.Set
	todos      *todo.List
	board      *task.Board
	staged     *structural.Staged // ast_edit's changes, staged until resolve
	skills     *skill.Set
	skillNotes []string   // what the skill catalogue could not use (said by Start)
	agentDefs  []AgentDef // the agent definitions the agent tool offers (a.mu)
	agentNotes []string   // what their files could not give, said by Start (a.mu)
	spawner    *spawner   // the agent tool's subagents
	mcp        mcpBoard   // the MCP servers' states
	vibe       *vibe.Board
	vibeOn     atomic.Bool
	cps        checkpoints // the project's checkpoints, kept by this session
	cpSeq      int64       // the stored conversation's last message when the running prompt came
}

// promptNotes is what goes to the model with the next prompt rather than into the
// system prompt, so that the request's prefix stays the same across days and
// resumes (a.mu).
type promptNotes struct {
	shellN     int      // the person's !commands
	shellNotes []string // their inputs and outputs, for the next prompt
	// startNotes are what the SessionStart hooks added and the skills a trust
	// brought (skills.go), for the next prompt; toldDate the date the model was last
	// told.
	startNotes []string
	toldDate   string
	modeNote   bool // the person changed the mode since the model was last told
	vibeNote   bool // the person turned vibe mode on or off since the model was last told
}

// faceWiring is the face's sink (a.mu) and asker.
type faceWiring struct {
	asker askerRef
	sink  face.Sink
}

// sessionPhase is where the session is in its life (a.mu).
type sessionPhase struct {
	started bool
	running bool // a turn runs
	ended   bool // the SessionEnd hooks ran
	closed  bool
}
