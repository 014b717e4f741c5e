package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// families is what a registry says of the file tools.
var families = map[string]tool.Files{
	"read_file": tool.FilesRead, "grep": tool.FilesRead, "glob": tool.FilesRead,
	"write_file": tool.FilesWrite, "edit_file": tool.FilesWrite, "apply_patch": tool.FilesWrite,
}

// project makes a project folder with secret/, src/ and a symlink link → secret, and
// an engine over it.
func project(t *testing.T, mode Mode, allow, deny []string) (*Engine, string) {
	t.Helper()
	root := t.TempDir()
	for _, d := range []string{"secret", "src", ".gantry", ".git"} {
		if err := os.MkdirAll(filepath.Join(root, d), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink("secret", filepath.Join(root, "link")); err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(mode, allow, deny)
	if err != nil {
		t.Fatal(err)
	}
	e.SetProject(root)
	e.SetFileTools(families)
	e.SetProtected(filepath.Join(t.TempDir(), "userconfig"))
	return e, root
}

func fileCall(name, root string, rel ...string) Call {
	c := Call{Tool: name, Level: tool.LevelWrite, Files: families[name], Principal: strings.Join(rel, " ")}
	if c.Files == tool.FilesRead {
		c.Level = tool.LevelRead
	}
	for _, r := range rel {
		if filepath.IsAbs(r) {
			c.Paths = append(c.Paths, filepath.Clean(r))
		} else {
			c.Paths = append(c.Paths, filepath.Join(root, r))
		}
	}
	return c
}

// Every spelling of a path is the same path to the rules, and a rule of one writing
// tool is a rule of all of them.
func TestPathRulesHold(t *testing.T) {
	e, root := project(t, ModeYolo, nil, []string{`write_file:secret/.*`, `read_file:secret/.*`})
	spellings := []string{"secret/x", "./secret/x", root + "/secret/x", "link/x", "src/../secret/x", "link/../secret/x", "secret//x", "src/./../link/x"}
	for _, tool := range []string{"write_file", "edit_file", "apply_patch", "read_file", "grep", "glob"} {
		for _, p := range spellings {
			if v := e.Check(fileCall(tool, root, p)); v.Decision != Deny {
				t.Errorf("%s %s: %v (%s)", tool, p, v.Decision, v.Reason)
			}
		}
	}
	if v := e.Check(fileCall("write_file", root, "src/x")); v.Decision != Allow {
		t.Errorf("src/x: %v (%s)", v.Decision, v.Reason)
	}
	// A patch touching an allowed file first, and a move into the denied folder.
	if v := e.Check(fileCall("apply_patch", root, "src/a.go", "secret/b.go")); v.Decision != Deny {
		t.Errorf("patch with an allowed file first: %v", v.Decision)
	}
	if v := e.Check(fileCall("apply_patch", root, "src/a.go", "link/a.go")); v.Decision != Deny {
		t.Errorf("*** Move to: into the denied folder: %v", v.Decision)
	}
	// A symlink out of the project is outside it: an absolute rule covers it.
	out := t.TempDir()
	if err := os.Symlink(out, filepath.Join(root, "out")); err != nil {
		t.Fatal(err)
	}
	e2, root2 := project(t, ModeYolo, nil, []string{`write_file:` + out + `/.*`})
	if err := os.Symlink(out, filepath.Join(root2, "out")); err != nil {
		t.Fatal(err)
	}
	if v := e2.Check(fileCall("edit_file", root2, "out/f")); v.Decision != Deny {
		t.Errorf("a link out of the project to a denied folder: %v (%s)", v.Decision, v.Reason)
	}
}

// An allow rule allows a multi-path call only when it covers every path.
func TestPathAllowNeedsEveryPath(t *testing.T) {
	e, root := project(t, ModeDefault, []string{`edit_file:src/.*`}, nil)
	if v := e.Check(fileCall("apply_patch", root, "src/a", "./src/b")); v.Decision != Allow {
		t.Errorf("all in src: %v (%s)", v.Decision, v.Reason)
	}
	if v := e.Check(fileCall("apply_patch", root, "src/a", "docs/b")); v.Decision != Ask {
		t.Errorf("one outside src: %v (%s)", v.Decision, v.Reason)
	}
}

// In accept-edits, gantry's settings, git's internals, Claude Code's settings, the MCP
// file and anything outside the project are asked; the rest of the project is not.
func TestProtectedPaths(t *testing.T) {
	e, root := project(t, ModeAcceptEdits, nil, nil)
	home, _ := os.UserHomeDir()
	for _, p := range []string{".gantry/permissions.yaml", ".gantry/config.yaml", ".git/config", ".git/hooks/pre-commit",
		".claude/settings.json", ".claude/settings.local.json", ".mcp.json", "../outside", filepath.Join(home, ".bashrc"), "src/.git/x"} {
		v := e.Check(fileCall("write_file", root, p))
		if v.Decision != Ask || v.AllowRule == "" || !strings.Contains(v.Reason, "protected") {
			t.Errorf("%s: %v (%s) rule %q", p, v.Decision, v.Reason, v.AllowRule)
		}
	}
	for _, p := range []string{"src/x", ".gitignore", ".claude/agents/a.md", "README.md"} {
		if v := e.Check(fileCall("write_file", root, p)); v.Decision != Allow {
			t.Errorf("%s: %v (%s)", p, v.Decision, v.Reason)
		}
	}
	// A broad rule does not open them; a rule naming one does.
	e, root = project(t, ModeAcceptEdits, []string{`write_file:.*`, `write_file:\.gantry/config\.yaml`}, nil)
	if v := e.Check(fileCall("edit_file", root, ".gantry/permissions.yaml")); v.Decision != Ask {
		t.Errorf("write_file:.* opened .gantry: %v", v.Decision)
	}
	if v := e.Check(fileCall("edit_file", root, ".gantry/config.yaml")); v.Decision != Allow {
		t.Errorf("a rule naming .gantry/config.yaml: %v (%s)", v.Decision, v.Reason)
	}
	// The question's "always" is the file alone.
	if g := e.Suggest(fileCall("write_file", root, ".gantry/permissions.yaml")); len(g.Rules) != 1 || g.Rules[0] != `write_file:\.gantry/permissions\.yaml` {
		t.Errorf("grant %+v", g)
	}
	// yolo writes what does not run code later.
	e, root = project(t, ModeYolo, nil, nil)
	if v := e.Check(fileCall("write_file", root, "../outside")); v.Decision != Allow {
		t.Errorf("yolo: %v", v.Decision)
	}
}

func TestResolvePath(t *testing.T) {
	dir := t.TempDir()
	real := filepath.Join(dir, "real")
	if err := os.MkdirAll(filepath.Join(real, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	_ = os.Symlink(filepath.Join(real, "sub"), filepath.Join(dir, "abs"))
	_ = os.Symlink("real/sub", filepath.Join(dir, "rel"))
	_ = os.Symlink("loop", filepath.Join(dir, "loop"))
	rd, _ := filepath.EvalSymlinks(dir)
	for in, want := range map[string]string{
		dir + "/abs/x":       rd + "/real/sub/x",
		dir + "/rel/../y":    rd + "/real/y",
		dir + "/missing/a/b": rd + "/missing/a/b",
		dir + "/loop/x":      rd + "/loop/x",
	} {
		if got := resolvePath(in); got != want && resolvePath(got) != resolvePath(want) {
			t.Errorf("%s: %s, want %s", in, got, want)
		}
	}
}

// The files that make a later session or shell run code are asked in every mode,
// yolo included, with the rule that would allow them; only a rule naming the file (or
// its protected folder) plainly allows it, and the rest of what is protected is
// written in yolo.
func TestCodeFilesAskedInEveryMode(t *testing.T) {
	home := t.TempDir()
	code := append([]string{".mcp.json", ".claude/settings.json", ".claude/settings.local.json", ".gantry/permissions.yaml",
		".gantry/config.yaml", ".git/hooks/pre-commit", ".git/config", "sub/.git", filepath.Join(home, ".bashrc"), filepath.Join(home, ".zshenv")},
		OtherMCPFiles...)
	for _, mode := range []Mode{ModeYolo, ModeAcceptEdits, ModeDefault} {
		for _, sandboxed := range []bool{false, true} {
			e, root := project(t, mode, []string{`write_file:.*`, `write_file:/.*`}, nil)
			e.SetRunsCode(filepath.Join(home, ".bashrc"), filepath.Join(home, ".zshenv"))
			e.SetSandboxed(func(Mode) bool { return sandboxed })
			for _, p := range code {
				v := e.Check(fileCall("write_file", root, p))
				if v.Decision != Ask || !v.EveryMode || v.AllowRule == "" || !strings.Contains(v.Reason, "yolo included") {
					t.Errorf("%s %s: %v (%s) rule %q", mode, p, v.Decision, v.Reason, v.AllowRule)
				}
			}
			// gantry's user folder, set by SetProtected.
			e.mu.Lock()
			user := e.protectedDirs[0]
			e.mu.Unlock()
			if v := e.Check(fileCall("edit_file", root, filepath.Join(user, "config.yaml"))); v.Decision != Ask || !v.EveryMode {
				t.Errorf("%s user config: %v (%s)", mode, v.Decision, v.Reason)
			}
		}
	}
	e, root := project(t, ModeYolo, nil, nil)
	for _, p := range []string{".git/objects/x", ".git/HEAD", "../outside", "src/x"} {
		if v := e.Check(fileCall("write_file", root, p)); v.Decision != Allow {
			t.Errorf("yolo %s: %v (%s)", p, v.Decision, v.Reason)
		}
	}
	// The rule a refusal names allows the file, and nothing else.
	v := e.Check(fileCall("write_file", root, ".mcp.json"))
	e, root = project(t, ModeYolo, []string{v.AllowRule, `write_file:\.gantry/.*`, `write_file:` + home + `/\.bashrc`}, nil)
	e.SetRunsCode(filepath.Join(home, ".bashrc"), filepath.Join(home, ".zshenv"))
	for _, p := range []string{".mcp.json", ".gantry/permissions.yaml", filepath.Join(home, ".bashrc")} {
		if v := e.Check(fileCall("write_file", root, p)); v.Decision != Allow {
			t.Errorf("a rule naming %s: %v (%s)", p, v.Decision, v.Reason)
		}
	}
	for _, p := range []string{".claude/settings.json", filepath.Join(home, ".zshenv")} {
		if v := e.Check(fileCall("write_file", root, p)); v.Decision != Ask {
			t.Errorf("%s: %v (%s)", p, v.Decision, v.Reason)
		}
	}
	// A rule naming the home folder does not name its start-up files.
	e, root = project(t, ModeYolo, []string{`write_file:` + home + `/.*`}, nil)
	e.SetRunsCode(filepath.Join(home, ".bashrc"))
	if v := e.Check(fileCall("write_file", root, filepath.Join(home, ".bashrc"))); v.Decision != Ask {
		t.Errorf("a rule naming the home folder: %v (%s)", v.Decision, v.Reason)
	}
}

// The folders the deny rules of writing tools name plainly are kept read-only by the
// sandbox.
func TestDeniedWritePaths(t *testing.T) {
	e, root := project(t, ModeYolo, nil, []string{`write_file:secret/.*`, `edit_file:config/prod\.yaml`, `write_file:.*\.env`, `bash:rm .*`, `write_file:/etc/.*`})
	got := strings.Join(e.DeniedWritePaths(), " ")
	want := strings.Join([]string{filepath.Join(root, "secret"), filepath.Join(root, "config/prod.yaml"), "/etc"}, " ")
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
