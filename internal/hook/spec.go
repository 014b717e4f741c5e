package hook

import (
	"fmt"
	"regexp"
	"time"
)

// DefaultTimeout is the timeout of a hook that gives none.
const DefaultTimeout = 60 * time.Second

// The sources of a hook.
const (
	SourceConfig  = "config"  // a settings file
	SourceSession = "session" // register_hook
)

// spec is one hook as the runner keeps it.
type spec struct {
	source    string
	event     string
	matcher   string
	re        *regexp.Regexp // nil when matcher selects everything or is invalid
	reErr     error          // the matcher does not compile
	command   string
	timeout   time.Duration
	onFailure string // "warn" or "block"
	index     int    // session hooks: the number register_hook gave it; config: 0
	claude    bool   // from a Claude Code settings file: Claude's names and fields
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

// label names the hook in sentences: its event and its command, shortened.
func (s *spec) label() string {
	cmd := []rune(s.command)
	if len(cmd) > 80 {
		cmd = append(cmd[:77], '…')
	}
	return fmt.Sprintf("%s hook `%s`", s.event, string(cmd))
}
