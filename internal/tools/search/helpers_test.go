package search

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

var testOpts = Options{MaxOutput: 30000}

type A = map[string]any

// call decodes args for t as the agent would and runs the call; a decoding refusal
// comes back as an error result.
func call(t testing.TB, tl tool.Tool, dir string, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	inv, msg := tl.Decode(tool.Env{Cwd: dir}, json.RawMessage(raw))
	if msg != "" {
		return tool.Fail(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return inv.Run(ctx)
}

func writeFiles(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func wantError(t testing.TB, r tool.Result, substr ...string) {
	t.Helper()
	if !r.IsError {
		t.Fatalf("want an error result, got success:\n%s", r.Text)
	}
	if strings.Contains(r.Text, "\n") {
		t.Fatalf("not one sentence: %q", r.Text)
	}
	for _, s := range substr {
		if !strings.Contains(r.Text, s) {
			t.Fatalf("error %q does not contain %q", r.Text, s)
		}
	}
}

func wantOK(t testing.TB, r tool.Result) {
	t.Helper()
	if r.IsError {
		t.Fatalf("want success, got error:\n%s", r.Text)
	}
}

// gorootSrc is the Go toolchain's own source tree, a real tree no one here wrote.
func gorootSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		testenv.Missing(tb, fmt.Sprintf("go env GOROOT: %v", err))
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

func lookRg(tb testing.TB) string {
	tb.Helper()
	rg := testenv.Need(tb, "rg")
	return rg
}
