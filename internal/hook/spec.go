package hook

import (
	"fmt"
	"regexp"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
)

// Timeouts of hooks.
const (
	// DefaultTimeout is the timeout of a command hook that gives none.
	DefaultTimeout = 60 * time.Second
	// DefaultPromptTimeout is the timeout of a prompt hook that gives none.
	DefaultPromptTimeout = 30 * time.Second
	// SessionEndTimeout is the timeout of a SessionEnd hook that gives none, and
	// SessionEndMaxTimeout the most one may have: gantry is exiting.
	SessionEndTimeout    = 1500 * time.Millisecond
	SessionEndMaxTimeout = 60 * time.Second
)

// The types of hooks.
const (
	TypeCommand = "command" // a shell command
	TypePrompt  = "prompt"  // a question to the session's model
)

// The sources of a hook.
const (
	SourceConfig  = "config"  // a settings file
	SourceSession = "session" // register_hook
)

// spec is one hook as the runner keeps it.
type spec struct {
	source     string
	event      string
	matcher    string
	re         *regexp.Regexp // nil when matcher selects everything or is invalid
	reErr      error          // the matcher does not compile
	kind       string         // TypeCommand or TypePrompt
	command    string
	prompt     string // a prompt hook's question
	timeout    time.Duration
	ownTimeout bool   // the hook gave its timeout
	onFailure  string // "warn" or "block"
	index      int    // session hooks: the number register_hook gave it; config: 0
	claude     bool   // from a Claude Code settings file: Claude's names and fields
	// cond is the hook's `if`: the Claude view of a call must match it (nil: any).
	cond *config.ClaudeIf
	// async: the hook runs without being waited for; what it says decides nothing.
	async bool
	// rewake (with async): its exit 2 wakes the model (Base.Rewake).
	rewake bool
	// rewakeMsg and rewakeSum are its rewakeMessage (put before what it wrote, for
	// the model) and rewakeSummary (the line shown to the person); "": none.
	rewakeMsg, rewakeSum string
	// pluginRoot is the folder of the plugin the hook comes from ("": none).
	pluginRoot string
	// status is its statusMessage: what it is doing, in the person's words ("": none).
	status string
}

// environ is env with what this hook's own process adds: a plugin's hook gets its
// plugin's folder in CLAUDE_PLUGIN_ROOT.
func (s *spec) environ(env []string) []string {
	if s.pluginRoot == "" {
		return env
	}
	return append(env[:len(env):len(env)], config.PluginRootEnv+"="+s.pluginRoot)
}

// newMatcher compiles a matcher for a whole-name match. Empty and "*" select everything.
func newMatcher(m string) (*regexp.Regexp, error) {
	if m == "" || m == "*" {
		return nil, nil
	}
	re, err := regexp.Compile("^(?:" + m + ")$")
	if err != nil {
		return nil, fmt.Errorf("the matcher %q is not a valid regular expression: %w", m, err)
	}
	return re, nil
}

// selects tells whether the hook runs for this event and tool, named by gantry's name
// or any other (Claude Code's: Bash, Edit, …). For events that concern no tool, a
// matcher is tried on toolName when the caller gives one (Claude Code matches
// SessionStart's source, PreCompact's trigger, Notification's type) and ignored when not.
func (s *spec) selects(event, toolName string, aliases ...string) bool {
	if s.matcher == "" || s.matcher == "*" {
		return true
	}
	if toolName == "" && !isToolEvent(event) {
		return true
	}
	if s.reErr != nil {
		return true // run reports the bad matcher
	}
	if s.re == nil {
		return false
	}
	if s.re.MatchString(toolName) {
		return true
	}
	for _, a := range aliases {
		if s.re.MatchString(a) {
			return true
		}
	}
	return false
}

// blocksOnFailure tells whether a failure of this hook blocks.
func (s *spec) blocksOnFailure() bool { return s.onFailure == "block" }

// label names the hook in sentences: its event and its command (or prompt), shortened.
func (s *spec) label() string {
	if s.kind == TypePrompt {
		return fmt.Sprintf("%s prompt hook %q", s.event, shorten(s.prompt))
	}
	if s.status != "" {
		return fmt.Sprintf("%s hook %q (`%s`)", s.event, shorten(s.status), shorten(s.command))
	}
	return fmt.Sprintf("%s hook `%s`", s.event, shorten(s.command))
}

func shorten(text string) string {
	r := []rune(text)
	if len(r) > 80 {
		r = append(r[:77], '…')
	}
	return string(r)
}

// atSessionEnd is the hook as it runs at SessionEnd: with SessionEndTimeout unless it
// gives a timeout, and with SessionEndMaxTimeout at most.
func (s *spec) atSessionEnd() *spec {
	c := *s
	if !c.ownTimeout {
		c.timeout = SessionEndTimeout
	}
	c.timeout = min(c.timeout, SessionEndMaxTimeout)
	return &c
}
