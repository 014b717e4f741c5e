package permission

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The guard denies a file by the rules of its family whatever tool asks, through
// every spelling of the path, and names the rule; it allows what no rule denies.
func TestFileGuardFamilies(t *testing.T) {
	e, root := project(t, ModeYolo, nil, []string{`read_file:\.env`, `write_file:secret/.*`})
	fams := map[string]tool.Files{}
	for k, v := range families {
		fams[k] = v
	}
	fams["lsp_rename"], fams["ast_edit"], fams["resolve"] = tool.FilesWrite, tool.FilesRead, tool.FilesWrite
	e.SetFileTools(fams)
	if err := os.WriteFile(filepath.Join(root, ".env"), []byte("KEY=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("../.env", filepath.Join(root, "src", "env-link")); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"grep", "glob", "lsp", "ast_grep", "lsp_rename", "resolve", "", "eval"} {
		g := e.FileGuard(name)
		for _, p := range []string{".env", "./src/../.env", "src/env-link"} {
			err := g.Read(filepath.Join(root, p))
			d, ok := tool.AsFileDenied(err)
			if !ok || d.Path != ".env" || !strings.Contains(d.Rule, `read_file:\.env`) || d.Write {
				t.Errorf("%s reads %s: %v", name, p, err)
			}
		}
		if err := g.Write(filepath.Join(root, ".env")); err != nil {
			t.Errorf("%s writes .env: a read rule denied it: %v", name, err)
		}
		for _, p := range []string{"secret/a", "link/a"} {
			err := g.Write(filepath.Join(root, p))
			if d, ok := tool.AsFileDenied(err); !ok || d.Path != "secret/a" || !d.Write {
				t.Errorf("%s writes %s: %v", name, p, err)
			}
		}
		if err := g.Read(filepath.Join(root, "secret/a")); err != nil {
			t.Errorf("%s reads secret/a: a write rule denied it: %v", name, err)
		}
		if err := g.Read(filepath.Join(root, "src/a.go")); err != nil {
			t.Errorf("%s reads src/a.go: %v", name, err)
		}
	}
	if got := (&tool.FileDenied{Path: ".env", Rule: `read_file:\.env`}).Skipped(); got != `[skipped .env: denied by read_file:\.env]` {
		t.Errorf("skipped line %q", got)
	}
}

// A rule naming the calling tool guards its files when the tool is of the family; a
// wildcard tool rule does too; a rule of another tool outside the families does not.
func TestFileGuardOwnRules(t *testing.T) {
	e, root := project(t, ModeYolo, nil, []string{`grep:src/gen/.*`, `mcp__fs__*:data/.*`, `web_fetch:src/.*`})
	fams := map[string]tool.Files{"mcp__fs__read": tool.FilesRead}
	for k, v := range families {
		fams[k] = v
	}
	e.SetFileTools(fams)
	if err := e.FileGuard("read_file").Read(filepath.Join(root, "src/gen/x.go")); err == nil {
		t.Error("grep's path rule is not a rule of the read family")
	}
	if err := e.FileGuard("mcp__fs__read").Read(filepath.Join(root, "data/x")); err == nil {
		t.Error("a wildcard rule of the calling tool did not hold")
	}
	if err := e.FileGuard("read_file").Read(filepath.Join(root, "data/x")); err != nil {
		t.Errorf("a wildcard rule of other tools held: %v", err)
	}
	if err := e.FileGuard("grep").Read(filepath.Join(root, "src/a.go")); err != nil {
		t.Errorf("web_fetch's rule held for a file: %v", err)
	}
}

// "Deny always" of a call on a file denies the file to every tool of the family.
func TestFileGuardDenyAlways(t *testing.T) {
	e, root := project(t, ModeDefault, nil, nil)
	g := e.FileGuard("grep")
	if err := g.Read(filepath.Join(root, "src/k.go")); err != nil {
		t.Fatal(err)
	}
	e.Remember(fileCall("read_file", root, "src/k.go"), false)
	if err := g.Read(filepath.Join(root, "./src/k.go")); err == nil || !strings.Contains(err.Error(), "deny always") {
		t.Errorf("after deny always: %v", err)
	}
	if err := g.Write(filepath.Join(root, "src/k.go")); err != nil {
		t.Errorf("a read's deny always denied a write: %v", err)
	}
}

// In yolo with the sandbox, gantry's own settings stay read-only for every tool.
func TestFileGuardSandboxedSettings(t *testing.T) {
	e, root := project(t, ModeYolo, nil, nil)
	if err := e.FileGuard("lsp_rename").Write(filepath.Join(root, ".gantry/permissions.yaml")); err != nil {
		t.Errorf("no sandbox: %v", err)
	}
	e.SetSandboxed(func(Mode) bool { return true })
	if err := e.FileGuard("lsp_rename").Write(filepath.Join(root, ".gantry/permissions.yaml")); err == nil {
		t.Error("the sandbox's read-only settings were written")
	}
}

// A nil guard allows everything.
func TestNilFileGuard(t *testing.T) {
	var env tool.Env
	if env.CanRead("/x") != nil || env.CanWrite("/x") != nil || env.CanChangeAll([]string{"/x"}) != nil {
		t.Error("a nil guard refused")
	}
}

// ".." after a link goes up from where the link points, as the kernel goes; a guard
// that resolved a folder once still sees a link put in place of a file in it.
func TestFileGuardResolvesAsTheKernel(t *testing.T) {
	e, root := project(t, ModeYolo, nil, []string{`read_file:secret/k`})
	if err := os.MkdirAll(filepath.Join(root, "secret", "deep"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("secret/deep", filepath.Join(root, "deeplink")); err != nil {
		t.Fatal(err)
	}
	g := e.FileGuard("grep")
	if err := g.Read(root + "/deeplink/../k"); err == nil {
		t.Error("deeplink/../k is secret/k")
	}
	if err := g.Read(filepath.Join(root, "src", "k")); err != nil {
		t.Fatalf("src/k: %v", err)
	}
	if err := os.Symlink("../secret/k", filepath.Join(root, "src", "k")); err != nil {
		t.Fatal(err)
	}
	if err := g.Read(filepath.Join(root, "src", "k")); err == nil {
		t.Error("src/k, now a link to secret/k, was allowed")
	}
}
