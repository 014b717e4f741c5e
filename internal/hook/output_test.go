package hook

import (
	"strings"
	"testing"
)

// run runs, for toolName, the hooks of one event given as commands, in one matcher
// that selects every tool.
func run(t *testing.T, event, toolName string, commands ...string) Outcome {
	t.Helper()
	m := hooks(event, "")
	for _, c := range commands {
		m[event][0].Hooks = append(m[event][0].Hooks, cmd(c, 0, ""))
	}
	return NewRunner(m, base(t.TempDir())).Run(t.Context(), event, toolName, map[string]any{"tool_name": toolName})
}

// A JSON decision "block" blocks with its reason.
func TestJSONDecisionBlock(t *testing.T) {
	t.Parallel()
	o := run(t, PreToolUse, "bash", `echo '{"decision":"block","reason":"use the test runner instead"}'`)
	if !o.Block || o.Reason != "use the test runner instead" {
		t.Fatalf("got %+v", o)
	}
}

// Claude Code's hookSpecificOutput.permissionDecision deny blocks with its reason;
// allow allows; ask does neither.
func TestJSONPermissionDecision(t *testing.T) {
	t.Parallel()
	o := run(t, PreToolUse, "bash", `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"not on main"}}'`)
	if !o.Block || o.Reason != "not on main" {
		t.Errorf("deny: got %+v", o)
	}
	o = run(t, PreToolUse, "bash", `echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
	if o.Block || !o.Allow {
		t.Errorf("allow: got %+v", o)
	}
	o = run(t, PreToolUse, "bash", `echo '{"hookSpecificOutput":{"permissionDecision":"ask"}}'`)
	if o.Block || o.Allow || len(o.Warnings) != 0 {
		t.Errorf("ask: got %+v", o)
	}
}

// decision "approve" allows, and a later block still wins.
func TestJSONApproveThenBlock(t *testing.T) {
	t.Parallel()
	o := run(t, PreToolUse, "bash", `echo '{"decision":"approve"}'`)
	if !o.Allow || o.Block {
		t.Errorf("approve: got %+v", o)
	}
	o = run(t, PreToolUse, "bash", `echo '{"decision":"approve"}'`, `echo '{"decision":"deny"}'`)
	if o.Allow || !o.Block || !strings.Contains(o.Reason, "without giving a reason") {
		t.Errorf("approve then deny: got %+v", o)
	}
}

// continue: false blocks with stopReason.
func TestJSONContinueFalse(t *testing.T) {
	t.Parallel()
	o := run(t, Stop, "", `echo '{"continue":false,"stopReason":"the build is red"}'`)
	if !o.Block || o.Reason != "the build is red" {
		t.Fatalf("got %+v", o)
	}
}

// updatedInput rewrites a PreToolUse call's input; the last hook wins; the Claude Code
// place works too.
func TestJSONUpdatedInput(t *testing.T) {
	t.Parallel()
	o := run(t, PreToolUse, "bash",
		`echo '{"updatedInput":{"command":"ls"}}'`,
		`echo '{"hookSpecificOutput":{"updatedInput":{"command":"ls -la","timeout":5}}}'`)
	if o.Block || string(o.UpdatedInput) != `{"command":"ls -la","timeout":5}` {
		t.Fatalf("got %+v (%s)", o, o.UpdatedInput)
	}
	o = run(t, PreToolUse, "bash", `echo '{"updatedInput":"ls"}'`)
	if o.UpdatedInput != nil || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "not a JSON object") {
		t.Errorf("a string: got %+v", o)
	}
	o = run(t, PostToolUse, "bash", `echo '{"updatedInput":{"command":"ls"}}'`)
	if o.UpdatedInput != nil {
		t.Errorf("PostToolUse: got %s", o.UpdatedInput)
	}
}

// additionalContext on UserPromptSubmit, from JSON (both places) and from plain stdout,
// joined across hooks.
func TestAdditionalContextOnUserPromptSubmit(t *testing.T) {
	t.Parallel()
	o := run(t, UserPromptSubmit, "",
		`echo '{"additionalContext":"branch: main"}'`,
		`echo '{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"ticket: GAN-7"}}'`,
		`echo "today is Monday"`)
	if o.Block || o.AdditionalContext != "branch: main\nticket: GAN-7\ntoday is Monday" {
		t.Fatalf("got %+v", o)
	}
}

// Plain stdout is context for SessionStart, and ignored for tool events.
func TestPlainStdout(t *testing.T) {
	t.Parallel()
	if o := run(t, SessionStart, "", `echo "read NOTES.md first"`); o.AdditionalContext != "read NOTES.md first" {
		t.Errorf("SessionStart: got %+v", o)
	}
	if o := run(t, PostToolUse, "bash", `echo "done"`); o.AdditionalContext != "" || len(o.Warnings) != 0 {
		t.Errorf("PostToolUse: got %+v", o)
	}
}

// JSON that cannot be read, or an unknown decision, is a warning.
func TestBadJSONWarns(t *testing.T) {
	t.Parallel()
	o := run(t, PreToolUse, "bash", `echo '{"decision":'`)
	if o.Block || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "printed JSON that could not be read") {
		t.Errorf("truncated: got %+v", o)
	}
	o = run(t, PreToolUse, "bash", `echo '{"decision":"maybe"}'`)
	if o.Block || len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], `unknown decision "maybe"`) {
		t.Errorf("unknown decision: got %+v", o)
	}
}

// Huge stdout is bounded in memory and then fails to read as JSON.
func TestHugeStdoutIsBounded(t *testing.T) {
	t.Parallel()
	o := run(t, PreToolUse, "bash", `printf '{"reason":"'; head -c 200000 /dev/zero | tr '\0' x; printf '"}'`)
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "only its first 64 KiB were kept") {
		t.Fatalf("got %+v", o)
	}
}
