package lsptool

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/permission/permtest"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The language server's tools under the per-file guard in yolo mode, where only deny
// rules protect: the gate's check sees the file a call names, the server's answer
// touches others. Each attack first takes effect with no rule, then is stopped.

func yoloGate(t *testing.T, dir string, deny ...string) *permission.Engine {
	t.Helper()
	return permtest.Yolo(t, dir, map[string]tool.Files{"lsp": tool.FilesRead, "lsp_rename": tool.FilesWrite}, deny...)
}

// gated runs a call as the agent does: decoded with the gate's guard for the tool,
// checked by the gate (which must let it through: the guard is what is tested), run.
func gated(t *testing.T, e *permission.Engine, tl tool.Tool, dir string, a A) tool.Result {
	t.Helper()
	raw, _ := json.Marshal(a)
	inv, msg := tl.Decode(tool.Env{Cwd: dir, Files: e.FileGuard(tl.Name())}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	v := e.Check(permission.Call{Tool: tl.Name(), Level: tl.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: tl.Info().Files})
	if v.Decision != permission.Allow {
		t.Fatalf("the gate stopped the call itself (%s); the attack needs another path", v.Reason)
	}
	return inv.Run(context.Background())
}

const keyGo = "package shapes\n\n// Key is the secret.\nconst Key = \"hunter2\"\n"

const keyUseGo = `package shapes

func Secret() string {
	return Key
}
`

// lsp_rename of a symbol used in a write-denied file writes no file at all.
func TestRenameAcrossDeniedFile(t *testing.T) {
	needGopls(t)
	m := newManager(t, lsp.Options{})
	args := A{"file": "shapes.go", "line": 14, "symbol": "Total", "new_name": "Sum"}
	dir := shapesProject(t)
	if r := gated(t, yoloGate(t, dir), Rename(m), dir, args); r.IsError {
		t.Fatalf("with no rule the rename fails, so the test proves nothing: %s", r.Text)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "use.go")); !strings.Contains(string(b), "Sum(") {
		t.Fatalf("with no rule use.go was not renamed:\n%s", b)
	}
	dir = shapesProject(t)
	r := gated(t, yoloGate(t, dir, `write_file:use\.go`), Rename(m), dir, args)
	wantError(t, r, "use.go", `write_file:use\.go`, "nothing was changed")
	for f, want := range map[string]string{"shapes.go": shapesGo, "use.go": useGo} {
		if b, _ := os.ReadFile(filepath.Join(dir, f)); string(b) != want {
			t.Errorf("%s was written:\n%s", f, b)
		}
	}
}

// Answers about a read-denied file — the lines of references and definitions, a
// hover quoting a declaration, workspace symbols — leave it out and say why.
func TestLspQueriesHideDeniedFile(t *testing.T) {
	needGopls(t)
	m := newManager(t, lsp.Options{})
	dir := shapesProject(t)
	writeTree(t, dir, map[string]string{"key.go": keyGo, "keyuse.go": keyUseGo})
	open := yoloGate(t, dir)
	closed := yoloGate(t, dir, `read_file:key\.go`)
	lsp := Tool(m, Options{})
	attacks := []struct {
		name string
		args A
	}{
		{"definition", A{"action": "definition", "file": "keyuse.go", "line": 4, "symbol": "Key"}},
		{"references", A{"action": "references", "file": "keyuse.go", "line": 4, "symbol": "Key"}},
		{"hover", A{"action": "hover", "file": "keyuse.go", "line": 4, "symbol": "Key"}},
		{"workspace symbols", A{"action": "symbols", "query": "Key"}},
	}
	for _, a := range attacks {
		t.Run(a.name, func(t *testing.T) {
			r := gated(t, open, lsp, dir, a.args)
			if !strings.Contains(r.Text, "hunter2") && !strings.Contains(r.Text, "key.go") {
				t.Fatalf("with no rule the answer says nothing of key.go, so the test proves nothing:\n%s", r.Text)
			}
			r = gated(t, closed, lsp, dir, a.args)
			t.Logf("guarded:\n%s", r.Text)
			if strings.Contains(r.Text, "hunter2") || strings.Contains(r.Text, "const Key") {
				t.Fatalf("the answer quotes key.go under read_file:key\\.go:\n%s", r.Text)
			}
			if !strings.Contains(r.Text, `read_file:key\.go`) {
				t.Errorf("the answer does not name the rule:\n%s", r.Text)
			}
		})
	}
	// The denied file itself is not sent to the server, were the gate to let the call
	// through (it does not: the call names the file).
	raw, _ := json.Marshal(A{"action": "symbols", "file": "key.go"})
	inv, msg := lsp.Decode(tool.Env{Cwd: dir, Files: closed.FileGuard("lsp")}, raw)
	if msg != "" {
		t.Fatal(msg)
	}
	wantError(t, inv.Run(context.Background()), `read_file:key\.go`)
}

// The project checker (go vet) quotes the code of a read-denied file; its messages
// about the file are left out and the file named.
func TestProjectCheckHidesDeniedFile(t *testing.T) {
	needGopls(t)
	m := newManager(t, lsp.Options{})
	dir := shapesProject(t)
	writeTree(t, dir, map[string]string{"key.go": "package shapes\n\nimport \"fmt\"\n\nfunc leak() { fmt.Printf(\"%d\\n\", \"hunter2\") }\n"})
	args := A{"action": "diagnostics", "file": "*"}
	if r := gated(t, yoloGate(t, dir), Tool(m, Options{}), dir, args); !strings.Contains(r.Text, "hunter2") {
		t.Fatalf("with no rule go vet does not quote key.go, so the test proves nothing:\n%s", r.Text)
	}
	r := gated(t, yoloGate(t, dir, `read_file:key\.go`), Tool(m, Options{}), dir, args)
	if strings.Contains(r.Text, "hunter2") || !strings.Contains(r.Text, `[skipped key.go: denied by read_file:key\.go from --deny]`) {
		t.Fatalf("under read_file:key\\.go:\n%s", r.Text)
	}
}
