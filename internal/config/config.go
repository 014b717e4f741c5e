package config

import "os"

// Config is gantry's merged configuration. The yaml names are the keys of the files.
type Config struct {
	// Provider is the model API: anthropic, openai or openai-chat. Empty: not chosen.
	Provider string `yaml:"provider,omitempty"`
	// Model is the main model's name (the key model, or model.name when model is a
	// mapping).
	Model string `yaml:"model,omitempty"`
	// StreamIdleTimeout (model.streamIdleTimeout) is how many seconds a model's
	// stream may go without a byte before the request is retried; FirstByteTimeout
	// (model.firstByteTimeout) how long a request may wait for the response to
	// begin. 0: the defaults, 90 and 120.
	StreamIdleTimeout int `yaml:"-"`
	FirstByteTimeout  int `yaml:"-"`
	// PingTimeout (model.pingTimeout) is how many seconds a stream may send only
	// keep-alives (pings, SSE comments) and no content; ResponseTimeout
	// (model.responseTimeout) how long one whole response may take; MaxRetryAfter
	// (model.maxRetryAfter) the longest wait a server's Retry-After is obeyed for.
	// 0: the defaults, 120, 600 and 60.
	PingTimeout     int `yaml:"-"`
	ResponseTimeout int `yaml:"-"`
	MaxRetryAfter   int `yaml:"-"`
	// Models names the tiers used for workers and subagents.
	Models Models `yaml:"models,omitempty"`
	// Providers configures each model provider (its base URL).
	Providers Providers `yaml:"providers,omitempty"`
	// MaxOutput bounds, in characters, what one tool result gives the model.
	MaxOutput int `yaml:"maxOutput"`
	// Tools says which tools are declared to the model and which deferred (found by
	// a tool search).
	Tools Tools `yaml:"tools"`
	// PreviewLines is how many dimmed lines of a tool's output the terminal shows.
	PreviewLines int `yaml:"previewLines"`
	// SkillsDir lists the project's skill folders, searched in order; in a file it may
	// be one string or a list. Relative entries are relative to the project root; "~/"
	// is the home folder. The user's skills folder is searched after them in any case:
	// see SkillDirs.
	SkillsDir []string `yaml:"skillsDir"`
	// EditTools offers the file editing tools to the model.
	EditTools bool `yaml:"editTools"`
	// Bash configures the bash tool.
	Bash Bash `yaml:"bash"`
	// Checkpoints configures the project's checkpoints (the working tree kept before
	// each prompt's first change).
	Checkpoints Checkpoints `yaml:"checkpoints"`
	// Compact configures automatic compaction.
	Compact Compact `yaml:"compact"`
	// Sandbox configures the sandbox bash commands run in.
	Sandbox Sandbox `yaml:"sandbox"`
	// MCPServers are the MCP servers to connect to, by name: those of Claude Code's
	// files (see loadClaudeMCP), then gantry's own, which win on a name clash.
	MCPServers map[string]MCPServer `yaml:"mcpServers,omitempty"`
	// MCPProblems are the sentences of what the MCP files of Claude Code and the other
	// tools could not give (a file that is not JSON, say), each naming the file:
	// notices, not errors.
	MCPProblems []string `yaml:"-"`
	// MCPSkipped says which servers of the other tools' files (Codex's, opencode's,
	// Crush's) were read and not used, and why: "name (file): why".
	MCPSkipped []string `yaml:"-"`
	// Hooks maps a hook event (PreToolUse, …) to its matchers, in Claude Code's shape.
	Hooks map[string][]HookMatcher `yaml:"hooks,omitempty"`
	// Permissions are the allow and deny rules.
	Permissions Permissions `yaml:"permissions,omitempty"`
	// PermissionMode is one of PermissionModes.
	PermissionMode string `yaml:"permissionMode"`
	// MaxTurns stops a task after that many turns; 0 means no limit.
	MaxTurns int `yaml:"maxTurns,omitempty"`
	// SystemPrompt replaces gantry's system prompt when not empty.
	SystemPrompt string `yaml:"systemPrompt,omitempty"`
	// AppendSystemPrompt is added at the end of the system prompt.
	AppendSystemPrompt string `yaml:"appendSystemPrompt,omitempty"`
	// Claude is what the Claude Code settings files gave (read below gantry's own).
	Claude ClaudeSettings `yaml:"-"`
	// PluginDirs are the plugin folders of the key plugins (docs/plugins.md); the
	// plugins loaded are Plugins(), what could not be loaded PluginProblems.
	PluginDirs     []string `yaml:"plugins,omitempty"`
	PluginProblems []string `yaml:"-"`

	root  string
	files []string
	// pluginRefs are the plugins the files enable, markets the local marketplaces
	// Claude Code's files name, plugins those loaded (pluginload.go).
	pluginRefs []pluginRef
	markets    map[string]KnownMarketplace
	plugins    *pluginSet
	// otherMCP are the servers of the other tools' files added, until
	// noteShadowedMCP says which of them a later file replaced.
	otherMCP []jsonServer
	// hold: the project's parts that run or allow are held back (LoadHeld); held
	// says what they are; trusted is the user's trustedFolders; mcpApproved the
	// .mcp.json servers the user's Claude settings approve (all: every one).
	hold        bool
	held        Held
	trusted     []string
	mcpApproved struct {
		all   bool
		names []string
	}
	// mcpChosen are the .mcp.json servers the Claude settings files choose (see
	// mcpchoice.go).
	mcpChosen mcpChoice
	// sections are the values of the sections tool families register (lsp, debug,
	// eval: section.go), by their index; each is a pointer to the section's type.
	sections []any
}

// Models names the model tiers.
type Models struct {
	Fast string `yaml:"fast,omitempty"`
	Good string `yaml:"good,omitempty"`
}

// PluginLSPServer is a language server an enabled plugin brings (its .lsp.json, in
// Claude Code's shape), as the lsp tools' section takes it (internal/tools/lsptool).
type PluginLSPServer struct {
	// Command is the binary, with Args; PluginRootVar is replaced in both.
	Command string
	Args    []string
	// Languages are the file extensions it serves, with their dot (".go").
	Languages []string
	// LanguageID is the LSP language id of its files.
	LanguageID string
	// InitializationOptions are sent as is in initialize.
	InitializationOptions map[string]any
}

// Bash configures the bash tool.
type Bash struct {
	// Timeout is the default timeout of one command, in seconds (1–600).
	Timeout int `yaml:"timeout"`
}

// Checkpoints configures the checkpoints.
type Checkpoints struct {
	// Off turns them off (checkpoints.enabled: false).
	Off bool `yaml:"-"`
	// MaxFileMB bounds a kept file's size, in MB (1–1024): larger files are left out.
	MaxFileMB int `yaml:"maxFileMB"`
}

// Enabled reports whether checkpoints are kept.
func (c Checkpoints) Enabled() bool { return !c.Off }

// Sandbox configures the sandbox of bash commands: the filesystem read-only but for
// the writable folders, the network on or loopback only.
type Sandbox struct {
	// Enabled turns it on or off; unset, it is on in yolo mode where a sandbox can be
	// made, and off in the other modes.
	Enabled *bool `yaml:"enabled,omitempty"`
	// Writable are folders commands may write besides the project, /tmp, $TMPDIR and
	// the toolchains' caches (~/.cache, Go's module and build caches, npm's cache).
	Writable []string `yaml:"writable,omitempty"`
	// Network is false for a network namespace with loopback only (default true).
	Network bool `yaml:"network"`
	// Ignored says what a project's file asked of the sandbox that only the user's
	// file may ask (turning it off, the network on, a writable folder outside the
	// project): one sentence each, for a notice.
	Ignored []string `yaml:"-"`
}

// Compact configures automatic compaction.
type Compact struct {
	// Threshold is the share of the context window (0 < x ≤ 1) at which the
	// conversation is compacted.
	Threshold float64 `yaml:"threshold"`
	// Window is the model's context window in tokens, for models gantry does not
	// know (local ones); 0 means gantry's own table, and no automatic compaction for
	// a model it does not know.
	Window int `yaml:"window,omitempty"`
}

// DeferModes are the values of tools.defer and of an MCP server's defer; SearchModes
// those of tools.search.
var (
	DeferModes  = []string{"auto", "never", "always"}
	SearchModes = []string{"auto", "server", "client"}
)

// Tools is the tools section of the config: deferral.
type Tools struct {
	// Defer: auto (the default: gantry's specialist tools deferred, MCP tools when
	// together they pass about 1,000 tokens), never or always.
	Defer string `yaml:"defer"`
	// Search: auto (the default: the API's own tool search on Anthropic and OpenAI
	// Responses, gantry's tool_search elsewhere), server or client.
	Search string `yaml:"search"`
}

// MCPServer is one MCP server: a command (stdio) or a URL (streamable HTTP, or the
// legacy HTTP+SSE transport), in the shape of Claude Code's entries. Command, Args,
// Env, URL and Headers may hold ${VAR} and ${VAR:-default}: see ExpandMCP.
type MCPServer struct {
	// Type is the transport: stdio, http or sse; empty means stdio with a command
	// and http with a url.
	Type    string            `yaml:"type,omitempty"`
	Command string            `yaml:"command,omitempty"`
	Args    []string          `yaml:"args,omitempty"`
	Env     map[string]string `yaml:"env,omitempty"`
	// Cwd is a stdio server's working folder; a relative one is made absolute
	// against the project root when the file is read. Empty: the session's folder.
	Cwd     string            `yaml:"cwd,omitempty"`
	URL     string            `yaml:"url,omitempty"`
	Headers map[string]string `yaml:"headers,omitempty"`
	// Timeout bounds start-up and each call, in seconds; 0 means gantry's default.
	Timeout int `yaml:"timeout,omitempty"`
	// Level is the level of the server's tools: read, write or exec (the default).
	Level string `yaml:"level,omitempty"`
	// Defer says whether the server's tools are deferred: auto (the default: when the
	// MCP tools together pass their budget), never or always.
	Defer string `yaml:"defer,omitempty"`
	// From says where the server is defined: "file:line".
	From string `yaml:"-"`
	// Problem, when not empty, is why the server cannot be started as its file
	// writes it (an entry of Claude Code's files gantry cannot use), as one
	// sentence naming the file and the server. Such a server is not started.
	Problem string `yaml:"-"`
}

// HookMatcher is a group of hooks that run for the tools whose name matches Matcher
// (a regular expression; empty matches every tool, and events without a tool).
type HookMatcher struct {
	Matcher string `yaml:"matcher,omitempty"`
	Hooks   []Hook `yaml:"hooks"`
	// Claude marks hooks of a Claude Code settings file: they are given Claude's
	// tool names and tool_input fields (see docs/hooks.md). From names the file.
	Claude bool   `yaml:"-"`
	From   string `yaml:"-"`
}

// Hook is one hook: a shell command, or a prompt the session's model judges.
type Hook struct {
	// Type is "command" (Command runs with bash -c) or "prompt" (the model is asked
	// Prompt about the event and answers with the JSON a command hook prints).
	Type    string `yaml:"type"`
	Command string `yaml:"command,omitempty"`
	Prompt  string `yaml:"prompt,omitempty"`
	// Timeout in seconds; 0 means gantry's default (60 for a command, 30 for a prompt).
	Timeout int `yaml:"timeout,omitempty"`
	// OnFailure is "warn" (the default) or "block": what a failing or timed-out hook does.
	OnFailure string `yaml:"onFailure,omitempty"`
	// If (Claude Code's `if`, from its settings files) is a permission rule a tool
	// call must match for the hook to run; nil: every call its matcher selects.
	If *ClaudeIf `yaml:"-"`
	// Async (Claude Code's `async`, and `asyncRewake`): the hook runs without being
	// waited for, and what it says decides nothing.
	Async bool `yaml:"-"`
	// AsyncRewake (Claude Code's `asyncRewake`, with Async): when the hook exits 2,
	// what it wrote wakes the model as a reminder.
	AsyncRewake bool `yaml:"-"`
	// RewakeMessage (Claude Code's `rewakeMessage`) is put before what an
	// asyncRewake hook wrote in what wakes the model; RewakeSummary (its
	// `rewakeSummary`) is the short line shown to the person instead of gantry's.
	RewakeMessage string `yaml:"-"`
	RewakeSummary string `yaml:"-"`
	// StatusMessage (Claude Code's `statusMessage`, the line it shows while the hook
	// runs) names the hook in what gantry says of it ("": its command).
	StatusMessage string `yaml:"-"`
	// PluginRoot is the folder of the plugin the hook comes from ("": none); its
	// command runs with it in CLAUDE_PLUGIN_ROOT, as Claude Code runs it.
	PluginRoot string `yaml:"-"`
}

// Permissions are rules in the shape of the rules file.
type Permissions struct {
	AllowAll bool     `yaml:"allow_all,omitempty"`
	Allow    []string `yaml:"allow,omitempty"`
	Deny     []string `yaml:"deny,omitempty"`
	// Ask rules (from Claude Code's permissions.ask): asked in every mode.
	Ask []string `yaml:"-"`

	allowFrom, denyFrom, askFrom []string // "file:line" of each rule
}

// AskFrom says where Ask[i] is written.
func (p Permissions) AskFrom(i int) string { return at(p.askFrom, i) }

// AllowFrom says where Allow[i] is written: "file:line" ("" when unknown).
func (p Permissions) AllowFrom(i int) string { return at(p.allowFrom, i) }

// DenyFrom says where Deny[i] is written: "file:line" ("" when unknown).
func (p Permissions) DenyFrom(i int) string { return at(p.denyFrom, i) }

func at(ss []string, i int) string {
	if i < 0 || i >= len(ss) {
		return ""
	}
	return ss[i]
}

// The values of the enumerations, in the order the documentation gives them.
var (
	PermissionModes = []string{"default", "accept-edits", "plan", "yolo"}
	HookEvents      = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "Notification", "SessionEnd"}
	HookTypes       = []string{"command", "prompt"}
	Levels          = []string{"read", "write", "exec"}
)

// Default returns the configuration used when no file says otherwise.
func Default() *Config {
	return &Config{
		plugins:        &pluginSet{},
		MaxOutput:      30000,
		PreviewLines:   5,
		SkillsDir:      []string{".gantry/skills"},
		EditTools:      true,
		Bash:           Bash{Timeout: 120},
		Tools:          Tools{Defer: "auto", Search: "auto"},
		Checkpoints:    Checkpoints{MaxFileMB: 16},
		Compact:        Compact{Threshold: 0.8},
		Sandbox:        Sandbox{Network: true},
		PermissionMode: "default",
		sections:       (&Config{}).sectionValues(),
	}
}

// Files returns the configuration files that were read, in the order they were merged.
func (c *Config) Files() []string { return c.files }

// Root returns the project root the configuration was loaded for.
func (c *Config) Root() string { return c.root }

// Getenv is a variable of the session's environment: the env of Claude Code's
// settings files first (as Claude Code applies it to its session), then gantry's own
// environment. A nil Config is gantry's environment alone. Nothing is set in the
// process: each session keeps its own.
func (c *Config) Getenv(name string) string {
	if c != nil {
		if v, ok := c.Claude.Env[name]; ok {
			return v
		}
	}
	return os.Getenv(name)
}

// Lookup is Getenv that tells whether the variable is set.
func (c *Config) Lookup(name string) (string, bool) {
	if c != nil {
		if v, ok := c.Claude.Env[name]; ok {
			return v, true
		}
	}
	return os.LookupEnv(name)
}
