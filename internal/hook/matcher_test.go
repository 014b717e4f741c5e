package hook

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
)

// A matcher is a regular expression on the whole tool name; empty and * select every
// tool.
func TestMatcherSelectsTools(t *testing.T) {
	t.Parallel()
	cases := []struct {
		matcher, tool string
		runs          bool
	}{
		{"", "bash", true},
		{"*", "read_file", true},
		{"bash", "bash", true},
		{"bash", "bash_extra", false}, // the whole name, not a part of it
		{"ash", "bash", false},
		{"bash|write_file", "write_file", true},
		{"bash|write_file", "read_file", false},
		{"mcp__.*", "mcp__github__create_issue", true},
		{"mcp__.*", "bash", false},
		{".*_file", "edit_file", true},
	}
	for _, c := range cases {
		r := NewRunner(hooks(PreToolUse, c.matcher, cmd("exit 2", 0, "")), base(t.TempDir()))
		if got := r.Run(t.Context(), PreToolUse, c.tool, nil).Block; got != c.runs {
			t.Errorf("matcher %q, tool %q: ran = %v, want %v", c.matcher, c.tool, got, c.runs)
		}
	}
}

// Events without a tool ignore matchers unless the caller gives a name to match (as
// Claude Code matches SessionStart's source).
func TestMatcherOnEventsWithoutTool(t *testing.T) {
	t.Parallel()
	r := NewRunner(hooks(SessionStart, "resume", cmd("exit 2", 0, "")), base(t.TempDir()))
	if !r.Run(t.Context(), SessionStart, "", nil).Block {
		t.Error("no name: the hook did not run")
	}
	if !r.Run(t.Context(), SessionStart, "resume", nil).Block {
		t.Error("resume: the hook did not run")
	}
	if r.Run(t.Context(), SessionStart, "startup", nil).Block {
		t.Error("startup: the hook ran")
	}
}

// A matcher that does not compile (config validates, so only a caller's mistake) is
// reported and its hook not run; under onFailure: block it blocks.
func TestBadMatcherIsReported(t *testing.T) {
	t.Parallel()
	r := NewRunner(map[string][]config.HookMatcher{PreToolUse: {
		{Matcher: "(", Hooks: []config.Hook{cmd("exit 2", 0, "")}},
		{Matcher: "[", Hooks: []config.Hook{cmd("exit 2", 0, "block")}},
	}}, base(t.TempDir()))
	o := r.Run(t.Context(), PreToolUse, "bash", nil)
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "not a valid regular expression") {
		t.Errorf("warnings %q", o.Warnings)
	}
	if !o.Block || !strings.Contains(o.Reason, "onFailure is block") {
		t.Errorf("got %+v", o)
	}
}

// Has tells whether an event has hooks at all.
func TestHas(t *testing.T) {
	t.Parallel()
	r := NewRunner(hooks(PreToolUse, "bash", cmd("true", 0, "")), base(t.TempDir()))
	if !r.Has(PreToolUse) || r.Has(PostToolUse) {
		t.Error("Has is wrong for the settings' hooks")
	}
	if _, err := r.Register(PostToolUse, "true", 0); err != nil {
		t.Fatal(err)
	}
	if !r.Has(PostToolUse) {
		t.Error("Has does not see a session hook")
	}
	var none *Runner
	if none.Has(PreToolUse) || none.Run(t.Context(), PreToolUse, "bash", nil).Block {
		t.Error("a nil Runner has hooks")
	}
}
