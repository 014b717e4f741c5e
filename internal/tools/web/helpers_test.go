package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// call decodes args for t and runs the call; malformed arguments fail the test.
func call(tb testing.TB, t tool.Tool, args any) tool.Result {
	tb.Helper()
	return callCtx(tb, context.Background(), t, args)
}

func callCtx(tb testing.TB, ctx context.Context, t tool.Tool, args any) tool.Result {
	tb.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		tb.Fatal(err)
	}
	inv, msg := t.Decode(tool.Env{Cwd: tb.TempDir()}, raw)
	if msg != "" {
		tb.Fatalf("%s refused %s: %s", t.Name(), raw, msg)
	}
	return inv.Run(ctx)
}

// refusal returns the sentence with which t refuses raw arguments.
func refusal(tb testing.TB, t tool.Tool, raw string) string {
	tb.Helper()
	_, msg := t.Decode(tool.Env{Cwd: tb.TempDir()}, json.RawMessage(raw))
	return msg
}

// serve starts a local server for h, closed when the test ends.
func serve(tb testing.TB, h http.Handler) *httptest.Server {
	tb.Helper()
	srv := httptest.NewServer(h)
	tb.Cleanup(srv.Close)
	return srv
}

var goRoot = sync.OnceValues(func() (string, error) {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	return strings.TrimSpace(string(out)), err
})

// goDoc returns the folder of HTML pages shipped with the Go toolchain, skipping the
// test when they are missing.
func goDoc(tb testing.TB, pages ...string) string {
	tb.Helper()
	root, err := goRoot()
	if err != nil {
		testenv.Missing(tb, fmt.Sprintf("go env GOROOT: %v", err))
	}
	dir := filepath.Join(root, "doc")
	for _, p := range pages {
		if _, err := os.Stat(filepath.Join(dir, p)); err != nil {
			testenv.Missing(tb, fmt.Sprintf("no %s in this Go installation: %v", p, err))
		}
	}
	return dir
}

func wantContains(tb testing.TB, s string, subs ...string) {
	tb.Helper()
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			tb.Errorf("missing %q in:\n%s", sub, clip(s))
		}
	}
}

func wantNotContains(tb testing.TB, s string, subs ...string) {
	tb.Helper()
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			tb.Errorf("unexpected %q in:\n%s", sub, clip(s))
		}
	}
}

// wantSentence checks that s is one line ending a sentence.
func wantSentence(tb testing.TB, s string) {
	tb.Helper()
	if s == "" || strings.Contains(s, "\n") || !strings.HasSuffix(s, ".") {
		tb.Errorf("want one sentence on one line, got %q", s)
	}
}

func clip(s string) string {
	if len(s) > 3000 {
		return s[:2000] + "\n[…]\n" + s[len(s)-1000:]
	}
	return s
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}
