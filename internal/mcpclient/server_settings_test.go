package mcpclient

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A server's own level and timeout replace the defaults; a bad level is reported.
func TestPerServerLevelAndTimeout(t *testing.T) {
	quick := echoServer("quick")
	quick.Level, quick.Timeout = "read", 300*time.Millisecond
	set := connect(t, Options{CallTimeout: time.Minute}, quick, echoServer("plain"), Server{Name: "odd", Command: echoBin, Level: "root"})
	if got := find(t, set, "mcp__quick__echo").Level(); got != tool.LevelRead {
		t.Errorf("configured level: %v", got)
	}
	if got := find(t, set, "mcp__plain__echo").Level(); got != tool.LevelExec {
		t.Errorf("default level: %v", got)
	}
	start := time.Now()
	r := call(context.Background(), t, set, "mcp__quick__slow", `{"ms":5000}`)
	if !r.IsError || !strings.Contains(r.Text, "no answer within") || time.Since(start) > 4*time.Second {
		t.Errorf("the server's timeout did not apply: %q after %v", r.Text, time.Since(start))
	}
	if f := set.Failures(); len(f) != 1 || !strings.Contains(f[0], `"odd"`) || !strings.Contains(f[0], "unknown level") {
		t.Errorf("failures %q", f)
	}
}
