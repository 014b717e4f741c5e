package hook

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
)

// SessionEnd hooks have 1.5 seconds unless they give a timeout (then at most 60), and
// their matchers are tried on the reason.
func TestSessionEndTimeoutsAndMatcher(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	r := NewRunner(map[string][]config.HookMatcher{SessionEnd: {
		{Matcher: "clear", Hooks: []config.Hook{cmd(`echo $$ > pid; sleep 100`, 0, "")}},
		{Matcher: "other|clear", Hooks: []config.Hook{cmd(`cat > stdin.json`, 600, "")}},
	}}, base(dir))
	start := time.Now()
	o := r.Run(t.Context(), SessionEnd, EndClear, map[string]any{"reason": EndClear})
	within(t, start, 5*time.Second)
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "within its timeout of 1.5s") {
		t.Fatalf("got %+v", o)
	}
	assertGroupGone(t, filepath.Join(dir, "pid"))
	if in := readFile(t, filepath.Join(dir, "stdin.json")); !strings.Contains(in, `"reason":"clear"`) || !strings.Contains(in, `"hook_event_name":"SessionEnd"`) {
		t.Errorf("stdin %s", in)
	}
	if l := r.List(); len(l) != 2 || l[0].Timeout != DefaultTimeout || l[1].Timeout != 600*time.Second {
		t.Errorf("List = %+v", l) // the listing shows the hooks' own timeouts
	}
	if got := (&spec{timeout: 600 * time.Second, ownTimeout: true}).atSessionEnd().timeout; got != SessionEndMaxTimeout {
		t.Errorf("a SessionEnd hook of 600 s runs %v", got)
	}
	o = r.Run(t.Context(), SessionEnd, EndPromptInputExit, map[string]any{"reason": EndPromptInputExit})
	if o.Block || len(o.Warnings) != 0 {
		t.Errorf("no hook matches prompt_input_exit: %+v", o)
	}
}
