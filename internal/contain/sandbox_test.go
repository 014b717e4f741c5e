package contain

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// landlockEnv marks the test binary run again with bubblewrap hidden from PATH.
const landlockEnv = "GANTRY_CONTAIN_TEST_LANDLOCK"

// pathWithout is a PATH of one folder holding links to every program of PATH but
// name: the program is hidden, the rest still found.
func pathWithout(t *testing.T, name string) string {
	t.Helper()
	shadow := t.TempDir()
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		entries, _ := os.ReadDir(d)
		for _, e := range entries {
			if e.Name() == name {
				continue
			}
			_ = os.Symlink(filepath.Join(d, e.Name()), filepath.Join(shadow, e.Name())) // the first one wins
		}
	}
	return shadow
}

// sandboxed runs script in a sandbox over project, returning its output.
func sandboxed(t *testing.T, project, script string, sb Sandbox) string {
	t.Helper()
	p := New(script, Options{Dir: project, Sandbox: &sb})
	var b bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &b, &b
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Wait(context.Background(), 60*time.Second, time.Second, nil)
	if f := p.SandboxFault(); f != "" {
		t.Fatalf("no sandbox: %s", f)
	}
	return b.String()
}

func needSandbox(t *testing.T, want Backend) {
	t.Helper()
	if want == BackendBubblewrap {
		testenv.Need(t, "bwrap")
	}
	b, why := SandboxStatus()
	if b != want {
		t.Skipf("the sandbox here is %s, not %s (%s)", b, want, why)
	}
}

// The sandbox's filesystem: the project and /tmp writable, the rest read-only, the
// read-only paths inside the project too, and no way out through a link, .. or
// /proc/self/root.
func TestSandboxFilesystem(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	testSandboxFilesystem(t, true)
}

func testSandboxFilesystem(t *testing.T, readOnlyInside bool) {
	project, outside := t.TempDir(), t.TempDir()
	// t.TempDir is under /tmp, which the sandbox leaves writable: the outside folder
	// must not be, so it is not given as writable and /tmp is not either here.
	os.MkdirAll(filepath.Join(project, ".gantry"), 0o755)
	os.Symlink(outside, filepath.Join(project, "out"))
	sb := Sandbox{Writable: []string{project}, ReadOnly: []string{filepath.Join(project, ".gantry")}, Network: true}
	rel, _ := filepath.Rel(project, outside)
	out := sandboxed(t, project, fmt.Sprintf(`
echo in > inside && echo inside-ok
echo x > %[1]s/direct 2>/dev/null || echo direct-refused
echo x > out/link 2>/dev/null || echo link-refused
echo x > %[2]s/dotdot 2>/dev/null || echo dotdot-refused
echo x > /proc/self/root%[1]s/procroot 2>/dev/null || echo procroot-refused
echo x > .gantry/config.yaml 2>/dev/null || echo gantry-refused
touch /etc/gantry-sandbox-test 2>/dev/null || echo etc-refused
`, outside, rel), sb)
	for _, want := range []string{"inside-ok", "direct-refused", "link-refused", "dotdot-refused", "procroot-refused", "etc-refused"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in %q", want, out)
		}
	}
	if readOnlyInside && !strings.Contains(out, "gantry-refused") {
		t.Errorf(".gantry was writable: %q", out)
	}
	entries, _ := os.ReadDir(outside)
	if len(entries) != 0 {
		t.Errorf("written outside: %v", entries)
	}
	if _, err := os.Stat("/etc/gantry-sandbox-test"); err == nil {
		os.Remove("/etc/gantry-sandbox-test")
		t.Error("written to /etc")
	}
}

// With the network off, a server on the host's loopback cannot be reached.
func TestSandboxNetworkOff(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("hello\n"))
			c.Close()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	script := fmt.Sprintf(`exec 3<>/dev/tcp/127.0.0.1/%d && head -1 <&3 || echo connect-refused`, port)
	project := t.TempDir()
	if out := sandboxed(t, project, script, Sandbox{Writable: []string{project}, Network: true}); !strings.Contains(out, "hello") {
		t.Errorf("network on: %q", out)
	}
	if out := sandboxed(t, project, script, Sandbox{Writable: []string{project}, Network: false}); !strings.Contains(out, "connect-refused") || strings.Contains(out, "hello") {
		t.Errorf("network off: %q", out)
	}
}

// go build and go test work in the sandbox with a warm cache.
func TestSandboxGoToolchain(t *testing.T) {
	testenv.Need(t, "go")
	if b, why := SandboxStatus(); b == BackendNone {
		t.Skip("no sandbox here: " + why)
	}
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, "go.mod"), []byte("module sbx\n\ngo 1.22\n"), 0o644)
	os.WriteFile(filepath.Join(project, "a.go"), []byte("package sbx\n\nfunc Two() int { return 2 }\n"), 0o644)
	os.WriteFile(filepath.Join(project, "a_test.go"), []byte("package sbx\n\nimport \"testing\"\n\nfunc TestTwo(t *testing.T) {\n\tif Two() != 2 {\n\t\tt.Fatal()\n\t}\n}\n"), 0o644)
	cache, _ := exec.Command("go", "env", "GOCACHE").Output()
	modcache, _ := exec.Command("go", "env", "GOMODCACHE").Output()
	sb := Sandbox{Writable: []string{project, os.TempDir(), strings.TrimSpace(string(cache)), strings.TrimSpace(string(modcache))}, Network: false}
	out := sandboxed(t, project, `go build ./... && go test ./... && echo toolchain-ok`, sb)
	if !strings.Contains(out, "toolchain-ok") {
		t.Errorf("%q", out)
	}
}

// Where bubblewrap is missing, Landlock keeps writes to the writable folders (the
// test runs itself again with bubblewrap hidden).
func TestSandboxLandlockFallback(t *testing.T) {
	if os.Getenv(landlockEnv) == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSandboxLandlockFallback$", "-test.v")
		cmd.Env = append(os.Environ(), landlockEnv+"=1", "PATH="+pathWithout(t, "bwrap"))
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		if s := string(out); strings.Contains(s, "--- SKIP") {
			t.Skip(s[strings.Index(s, "--- SKIP"):])
		}
		return
	}
	if _, err := exec.LookPath("bwrap"); err == nil {
		t.Fatal("bwrap is still on PATH")
	}
	needSandbox(t, BackendLandlock)
	testSandboxFilesystem(t, false) // Landlock cannot take back a part of a writable folder
}

// A sandboxed command leaves nothing behind either: bubblewrap's PID namespace dies
// with it, and with gantry.
func TestSandboxLeavesNothing(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	project := t.TempDir()
	out := sandboxed(t, project, `setsid sleep 354.5 & nohup sleep 354.5 >/dev/null 2>&1 & echo started`, Sandbox{Writable: []string{project}, Network: true})
	if !strings.Contains(out, "started") {
		t.Fatalf("%q", out)
	}
	gone(t, "sleep 354.5", time.Second)
}
