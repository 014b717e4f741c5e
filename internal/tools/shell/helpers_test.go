package shell

import (
	"context"
	"encoding/json"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// toolNamed returns the tool called name among Tools(o).
func toolNamed(t *testing.T, o Options, name string) tool.Tool {
	t.Helper()
	for _, x := range Tools(o) {
		if x.Name() == name {
			return x
		}
	}
	t.Fatalf("no tool %q", name)
	return nil
}

// call decodes args (a JSON object) for tl and runs it.
func call(t *testing.T, ctx context.Context, tl tool.Tool, env tool.Env, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	inv, msg := tl.Decode(env, raw)
	if msg != "" {
		t.Fatalf("%s refused %s: %s", tl.Name(), raw, msg)
	}
	return inv.Run(ctx)
}

// bash runs a command with the default options in dir.
func bash(t *testing.T, dir string, args map[string]any) tool.Result {
	t.Helper()
	return call(t, context.Background(), toolNamed(t, Options{}, "bash"), tool.Env{Cwd: dir}, args)
}

var pgidLine = regexp.MustCompile(`(?m)^pgid=(\d+)$`)

// pgidOf reads the "pgid=N" line a test command printed with `echo pgid=$(cut -d' ' -f5 /proc/self/stat)`.
func pgidOf(t *testing.T, out string) int {
	t.Helper()
	m := pgidLine.FindStringSubmatch(out)
	if m == nil {
		t.Fatalf("no pgid line in %q", out)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// livingMembers scans /proc for the processes of group pgid that are not zombies.
func livingMembers(pgid int) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(b)
		f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
		if len(f) >= 3 && f[2] == strconv.Itoa(pgid) && f[0] != "Z" && f[0] != "X" {
			pids = append(pids, e.Name()+"("+f[0]+")")
		}
	}
	return pids
}

// assertGroupGone fails when a process of group pgid is still alive.
func assertGroupGone(t *testing.T, pgid int) {
	t.Helper()
	if pgid <= 1 {
		t.Fatalf("bad pgid %d", pgid)
	}
	if left := livingMembers(pgid); len(left) > 0 {
		t.Errorf("process group %d still has living members %v", pgid, left)
	}
}

// waitFor polls cond for up to d.
func waitFor(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
