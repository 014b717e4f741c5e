package main

import (
	"flag"
	"io"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// Every sub-command reads its command line by one rule: a flag after a positional
// argument does what it does before it. Each case runs the binary both ways and wants
// the same outcome, which shows the flag took effect (want); for the sub-commands that
// take no positional argument, the flag is a bad one, so that its error, not the
// unexpected argument, is what both orders say.
func TestFlagsAfterPositionalsInEverySubcommand(t *testing.T) {
	// A folder with a session that has one checkpoint, for rewind, run from another.
	withSession := t.TempDir()
	_, sessionEnv := fakeModel(t, call("w1", "bash", `{"command":"echo one > a.txt"}`), say("Wrote it."))
	if r := gantry(t, withSession, sessionEnv, "-p", "write a.txt", "--permission-mode", "yolo"); r.code != 0 {
		t.Fatalf("the session for rewind: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	elsewhere := func(t *testing.T) (string, []string) { return t.TempDir(), sessionEnv }
	plugin := filepath.Join(t.TempDir(), "demo")
	writeFiles(t, plugin, map[string]string{".claude-plugin/plugin.json": `{"name": "demo", "version": "0.2.0"}`})
	fresh := func(t *testing.T) (string, []string) {
		dir := t.TempDir()
		writeFiles(t, dir, map[string]string{"a.txt": "the file's text\n", ".git/HEAD": "ref: refs/heads/main\n"})
		return dir, env(t)
	}
	for _, c := range []struct {
		name          string
		before, after []string
		// prep gives the folder and environment of both runs (a fresh one each when
		// the command changes something).
		prep  func(t *testing.T) (string, []string)
		once  bool // prep once for both orders: the command changes nothing
		code  int
		want  string // in stdout or stderr
		where string // "stdout" or "stderr"
	}{
		{name: "rewind", before: []string{"rewind", "-C", "@session", "9"}, after: []string{"rewind", "9", "-C", "@session"},
			prep: elsewhere, once: true, code: 1, want: "there is no checkpoint 9: the checkpoints are 1 to 1", where: "stderr"},
		{name: "sessions", before: []string{"sessions", "--limit", "x", "extra"}, after: []string{"sessions", "extra", "--limit", "x"},
			prep: fresh, once: true, code: 2, want: `--limit takes a whole number, not "x"`, where: "stderr"},
		{name: "prompt", before: []string{"prompt", "--json=maybe", "extra"}, after: []string{"prompt", "extra", "--json=maybe"},
			prep: fresh, once: true, code: 2, want: `--json is on or off`, where: "stderr"},
		{name: "doctor", before: []string{"doctor", "--bogus", "extra"}, after: []string{"doctor", "extra", "--bogus"},
			prep: fresh, once: true, code: 2, want: "unknown flag --bogus", where: "stderr"},
		{name: "tool NAME", before: []string{"tool", "--raw", "read_file", `{"path":"a.txt"}`}, after: []string{"tool", "read_file", `{"path":"a.txt"}`, "--raw"},
			prep: fresh, once: true, code: 0, want: "the file's text", where: "stdout"},
		{name: "tool NAME --help", before: []string{"tool", "--help", "read_file"}, after: []string{"tool", "read_file", "--help"},
			prep: fresh, once: true, code: 0, want: "read_file — level", where: "stdout"},
		{name: "tool list", before: []string{"tool", "--json", "list"}, after: []string{"tool", "list", "--json"},
			prep: fresh, once: true, code: 0, want: `"name": "read_file"`, where: "stdout"},
		{name: "plugin", before: []string{"plugin", "--project", "add", plugin}, after: []string{"plugin", "add", plugin, "--project"},
			prep: fresh, code: 0, want: "Added the plugin demo (project): " + plugin, where: "stdout"},
		{name: "mcp", before: []string{"mcp", "--max-turns", "x", "extra"}, after: []string{"mcp", "extra", "--max-turns", "x"},
			prep: fresh, once: true, code: 2, want: `--max-turns takes a whole number, not "x"`, where: "stderr"},
		{name: "acp", before: []string{"acp", "--max-turns", "x", "extra"}, after: []string{"acp", "extra", "--max-turns", "x"},
			prep: fresh, once: true, code: 2, want: `--max-turns takes a whole number, not "x"`, where: "stderr"},
		{name: "version", before: []string{"version", "--bogus", "extra"}, after: []string{"version", "extra", "--bogus"},
			prep: fresh, once: true, code: 2, want: "unknown flag --bogus", where: "stderr"},
		{name: "print mode", before: []string{"--max-turns", "x", "-p", "hello"}, after: []string{"-p", "hello", "--max-turns", "x"},
			prep: fresh, once: true, code: 2, want: `--max-turns takes a whole number, not "x"`, where: "stderr"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir, e := c.prep(t)
			var got [2]outcome
			for i, args := range [][]string{c.before, c.after} {
				if i == 1 && !c.once {
					dir, e = c.prep(t)
				}
				args = append([]string(nil), args...)
				for j, a := range args {
					if a == "@session" {
						args[j] = withSession
					}
				}
				got[i] = gantry(t, dir, e, args...)
				out := got[i].stdout
				if c.where == "stderr" {
					out = got[i].stderr
				}
				if got[i].code != c.code || !strings.Contains(out, c.want) {
					t.Errorf("gantry %s: exit %d, want %d with %q on %s\n%s%s", strings.Join(args, " "), got[i].code, c.code, c.want, c.where, got[i].stdout, got[i].stderr)
				}
			}
			if got[0] != got[1] {
				t.Errorf("a flag after the positional arguments gives\n%+v\nand before them\n%+v", got[1], got[0])
			}
		})
	}
}

// parseArgs, the rule itself: flags anywhere, "--" ends them unless it is a flag's
// value, a lone "-" is a positional argument.
func TestParseArgs(t *testing.T) {
	for _, c := range []struct {
		args  []string
		words []string
		force bool
		text  string
	}{
		{args: []string{"2", "--force"}, words: []string{"2"}, force: true},
		{args: []string{"--force", "2"}, words: []string{"2"}, force: true},
		{args: []string{"a", "--text", "t", "b", "--force", "c"}, words: []string{"a", "b", "c"}, force: true, text: "t"},
		{args: []string{"a", "--", "--force", "b"}, words: []string{"a", "--force", "b"}},
		{args: []string{"--force", "--", "-", "--"}, words: []string{"-", "--"}, force: true},
		{args: []string{"--text", "--", "a", "--force"}, words: []string{"a"}, force: true, text: "--"},
		{args: []string{"-", "--text=--", "--"}, words: []string{"-"}, text: "--"},
		{args: nil, words: nil},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		force := fs.Bool("force", false, "")
		text := fs.String("text", "", "")
		words, err := parseArgs(fs, c.args)
		if err != nil || !reflect.DeepEqual(words, c.words) || *force != c.force || *text != c.text {
			t.Errorf("parseArgs(%q) = %q, force %v, text %q, %v; want %q, force %v, text %q", c.args, words, *force, *text, err, c.words, c.force, c.text)
		}
	}
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if _, err := parseArgs(fs, []string{"a", "--nope"}); err == nil || flagError(err).Error() != "unknown flag --nope (gantry --help lists them)" {
		t.Errorf("an unknown flag after a positional: %v", err)
	}
}
