package hook

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
)

// parseEnv takes plain assignments, with quotes and $NAME, and refuses whole lines
// that would need a shell to run.
func TestParseEnv(t *testing.T) {
	t.Parallel()
	text := strings.Join([]string{
		`export A=1`,
		`B="two words"  # a comment`,
		`export C='$A stays' D=$A/x E="${A}y" F=pre\ fix`,
		``,
		`# only a comment`,
		`export PATH="/opt/tool/bin:$PATH"`,
		`G=$(whoami)`,
		"H=`id`",
		`I=1; rm -rf /`,
		`J=${A:-default}`,
		`export K`,
		`L="unterminated`,
		`export M="$UNSET_IN_THIS_TEST"  N='it''s'`,
		`not an assignment`,
		`O=a|b`,
		`P="cost: $5"`,
	}, "\n")
	env := map[string]string{"PATH": "/usr/bin"}
	var got []string
	bad := parseEnv(text, func(n string) string { return env[n] }, func(n, v string) {
		env[n] = v
		got = append(got, n+"="+v)
	})
	want := []string{"A=1", "B=two words", "C=$A stays", "D=1/x", "E=1y", "F=pre fix", "PATH=/opt/tool/bin:/usr/bin", "M=", "N=its"}
	if !slices.Equal(got, want) {
		t.Errorf("set\n%q\nwant\n%q", got, want)
	}
	if wantBad := []int{7, 8, 9, 10, 12, 14, 15, 16}; !slices.Equal(bad, wantBad) {
		t.Errorf("bad lines %v, want %v", bad, wantBad)
	}
}

// Each SessionStart command hook gets its own CLAUDE_ENV_FILE (mode 0600); what they
// export is read in their order, a later hook seeing an earlier one's values; a line
// gantry does not take is a warning. Other events get no CLAUDE_ENV_FILE.
func TestSessionStartEnvFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	b := base(dir)
	b.EnvDir = filepath.Join(dir, "env", "s-123")
	r := NewRunner(map[string][]config.HookMatcher{
		SessionStart: {{Hooks: []config.Hook{
			cmd(`read x < go; echo 'export GREETING="hello there"' >> "$CLAUDE_ENV_FILE"; echo "$CLAUDE_ENV_FILE" > first.path`, 10, ""),
			cmd(`echo 'export SECOND=$GREETING' >> "$CLAUDE_ENV_FILE"; echo 'X=$(id)' >> "$CLAUDE_ENV_FILE"; echo > go`, 10, ""),
		}}},
		PreToolUse: {{Hooks: []config.Hook{cmd(`echo "${CLAUDE_ENV_FILE-unset}" > pre.txt`, 0, "")}}},
	}, b)
	if err := mkfifo(filepath.Join(dir, "go")); err != nil {
		t.Fatal(err)
	}
	o := r.Run(t.Context(), SessionStart, "startup", map[string]any{"source": "startup"})
	if want := []string{"GREETING=hello there", "SECOND=hello there"}; !slices.Equal(o.Env, want) {
		t.Errorf("Env %q, want %q", o.Env, want)
	}
	if len(o.Warnings) != 1 || !strings.Contains(o.Warnings[0], "CLAUDE_ENV_FILE that gantry does not take (line 2)") {
		t.Errorf("warnings %q", o.Warnings)
	}
	p := strings.TrimSpace(readFile(t, filepath.Join(dir, "first.path")))
	if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != 0o600 || filepath.Dir(p) != b.EnvDir {
		t.Errorf("CLAUDE_ENV_FILE %s: %v %v", p, fi, err)
	}
	r.Run(t.Context(), PreToolUse, "bash", nil)
	if got := readFile(t, filepath.Join(dir, "pre.txt")); got != "unset\n" {
		t.Errorf("PreToolUse has CLAUDE_ENV_FILE %q", got)
	}
}
