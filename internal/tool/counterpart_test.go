package tool

import "testing"

// Another agent's name for a tool finds gantry's: Claude Code's Write is write_file
// (whose first Claude name it is, and which has fewest), not apply_patch; Codex's
// shell is bash; a tool above the level is not offered.
func TestCounterpart(t *testing.T) {
	r := NewRegistry()
	r.Add(mk("apply_patch", LevelWrite, Info{ClaudeNames: []string{"Write", "Edit", "MultiEdit"}}, "patch"))
	r.Add(mk("write_file", LevelWrite, Info{ClaudeNames: []string{"Write"}}, "write"))
	r.Add(mk("edit_file", LevelWrite, Info{ClaudeNames: []string{"Edit", "MultiEdit"}, Aliases: []string{"str_replace_based_edit_tool"}}, "edit"))
	r.Add(mk("bash", LevelExec, Info{ClaudeNames: []string{"Bash"}, Aliases: []string{"shell"}}, "run"))
	r.Add(mk("read_file", LevelRead, Info{ClaudeNames: []string{"Read"}}, "read"))
	for name, want := range map[string]string{
		"Write": "write_file", "Edit": "edit_file", "MultiEdit": "edit_file", "Bash": "bash", "shell": "bash",
		"str_replace_based_edit_tool": "edit_file", "Read": "read_file",
	} {
		if got, ok := r.Counterpart(name, LevelExec); !ok || got.Name() != want {
			t.Errorf("%s: got %v, want %s", name, got, want)
		}
	}
	for _, name := range []string{"bash", "Nope", "read"} {
		if got, ok := r.Counterpart(name, LevelExec); ok {
			t.Errorf("%s has a counterpart: %s", name, got.Name())
		}
	}
	if got, ok := r.Counterpart("Bash", LevelRead); ok {
		t.Errorf("plan mode offers %s for Bash", got.Name())
	}
}
