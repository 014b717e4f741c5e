//go:build linux

package contain

import (
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// plain runs script contained but with no sandbox and no judge: what a command does
// without gantry's sandbox.
func plain(t *testing.T, dir, script string) string {
	t.Helper()
	out, _ := runIn(t, dir, script, Options{})
	return out
}

// underLandlock runs the calling test again in a test binary that cannot find
// bubblewrap, so that its sandboxes are Landlock's; it tells whether it did (the
// caller then returns).
func underLandlock(t *testing.T) bool {
	t.Helper()
	if os.Getenv(landlockEnv) != "" {
		if _, err := exec.LookPath("bwrap"); err == nil {
			t.Fatal("bwrap is still on PATH")
		}
		needSandbox(t, BackendLandlock)
		return false
	}
	cmd := exec.Command(os.Args[0], "-test.run=^"+t.Name()+"$", "-test.v")
	cmd.Env = append(os.Environ(), landlockEnv+"=1", "PATH="+pathWithout(t, "bwrap"))
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if s := string(out); strings.Contains(s, "--- SKIP") {
		t.Skip(s[strings.Index(s, "--- SKIP"):])
	}
	return true
}

// A path under a read deny rule is an empty file or folder in the sandbox, for every
// program; the rest of the project reads as before, and nothing is created on the
// host for a path that is not there.
func TestSandboxUnreadable(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	project := t.TempDir()
	os.WriteFile(filepath.Join(project, ".env"), []byte("TOKEN=hunter2\n"), 0o600)
	os.MkdirAll(filepath.Join(project, "secrets"), 0o755)
	os.WriteFile(filepath.Join(project, "secrets", "key"), []byte("hunter3\n"), 0o600)
	os.WriteFile(filepath.Join(project, "readme"), []byte("open-ok\n"), 0o644)
	os.Symlink(".env", filepath.Join(project, "env-link"))
	script := `cat .env; head -1 .env; python3 -c 'print(open(".env").read())'; cat env-link; cat secrets/key; ls secrets | sed s/^/listed:/; cat readme`
	if out := plain(t, project, script); !strings.Contains(out, "hunter2") || !strings.Contains(out, "hunter3") {
		t.Fatalf("with no sandbox the secrets were not read: %q", out)
	}
	missing := filepath.Join(project, "not-there")
	sb := Sandbox{Writable: []string{project}, Unreadable: []string{filepath.Join(project, ".env"), filepath.Join(project, "secrets"), missing}}
	out := sandboxed(t, project, script+`; echo x > secrets/new || echo write-refused`, sb)
	if strings.Contains(out, "hunter") || strings.Contains(out, "listed:") {
		t.Errorf("a secret was read in the sandbox: %q", out)
	}
	if !strings.Contains(out, "open-ok") || !strings.Contains(out, "write-refused") {
		t.Errorf("%q", out)
	}
	if exists(missing) {
		t.Error("a mask created a path on the host")
	}
	if b, _ := os.ReadFile(filepath.Join(project, ".env")); string(b) != "TOKEN=hunter2\n" {
		t.Errorf(".env changed on the host: %q", b)
	}
}

// A folder under a write deny rule is read-only in the sandbox.
func TestSandboxWriteDenied(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	project := t.TempDir()
	os.MkdirAll(filepath.Join(project, "protected"), 0o755)
	script := `echo x > protected/f && echo wrote; mkdir protected/d && echo made; echo y > free && echo free-ok`
	if out := plain(t, project, script); !strings.Contains(out, "wrote") {
		t.Fatalf("with no sandbox the folder was not written: %q", out)
	}
	os.RemoveAll(filepath.Join(project, "protected"))
	os.MkdirAll(filepath.Join(project, "protected"), 0o755)
	out := sandboxed(t, project, script, Sandbox{Writable: []string{project}, ReadOnly: []string{filepath.Join(project, "protected")}})
	if strings.Contains(out, "wrote") || strings.Contains(out, "made") || !strings.Contains(out, "free-ok") {
		t.Errorf("%q", out)
	}
	if entries, _ := os.ReadDir(filepath.Join(project, "protected")); len(entries) != 0 {
		t.Errorf("written: %v", entries)
	}
}

// hiddenAttacks run mv (a → b in the working folder) by every way round its name.
func hiddenAttacks() map[string]string {
	at := map[string]string{
		"by-name":       `mv a b`,
		"by-other-path": `/bin/mv a b`,
		"copy":          `cp /usr/bin/mv ./m && ./m a b`,
		"copy-changed":  `cp /usr/bin/mv ./m2 && printf x >> ./m2 && ./m2 a b`,
		"proc-self-fd":  `exec 3</usr/bin/mv; /proc/self/fd/3 a b`,
		"memfd":         `python3 -c 'import os; b = open("/usr/bin/mv", "rb").read(); fd = os.memfd_create("m"); os.write(fd, b); os.execv("/proc/self/fd/%d" % fd, ["mv", "a", "b"])'`,
	}
	for _, pat := range []string{"/lib64/ld-linux-*.so.*", "/lib/ld-linux-*.so.*"} {
		if m, _ := filepath.Glob(pat); len(m) > 0 {
			at["loader"] = m[0] + ` /usr/bin/mv a b`
			break
		}
	}
	return at
}

// A program denied whole is not there to run in the sandbox, by any name or copy.
func TestSandboxHiddenProgram(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	testHiddenProgram(t)
}

// The same with Landlock, which leaves mv's file out of its read and run grants.
func TestSandboxHiddenProgramLandlock(t *testing.T) {
	if underLandlock(t) {
		return
	}
	testHiddenProgram(t)
}

func testHiddenProgram(t *testing.T) {
	for name, script := range hiddenAttacks() {
		t.Run(name, func(t *testing.T) {
			project := t.TempDir()
			a, b := filepath.Join(project, "a"), filepath.Join(project, "b")
			os.WriteFile(a, []byte("x"), 0o644)
			if out := plain(t, project, script); !exists(b) {
				t.Fatalf("with no sandbox mv did not run: %q", out)
			}
			os.Remove(b)
			os.WriteFile(a, []byte("x"), 0o644)
			out := sandboxed(t, project, script+`; echo done`, Sandbox{Writable: []string{project}, Hidden: []string{"mv"}})
			if exists(b) || !exists(a) || !strings.Contains(out, "done") {
				t.Errorf("mv ran in the sandbox: %q", out)
			}
		})
	}
}

// raceScript swaps a link between true and mv while another loop runs it: the exec
// supervisor judges the path, the kernel then looks it up again, and a swap in
// between wins. Both loops are bounded.
const raceScript = `ln -sf /bin/true p
(for i in $(seq 150); do ln -sf /usr/bin/mv p; ln -sf /bin/true p; done) &
for i in $(seq 150); do ./p a b 2>/dev/null; [ -e a ] || break; done
wait; echo done`

// With mv hidden, the race on a link cannot run mv whoever wins it.
func TestSandboxHiddenRace(t *testing.T) {
	needSupervisor(t)
	needSandbox(t, BackendBubblewrap)
	project := t.TempDir()
	a, b := filepath.Join(project, "a"), filepath.Join(project, "b")
	os.WriteFile(a, []byte("x"), 0o644)
	if out := plain(t, project, raceScript); !exists(b) {
		t.Fatalf("with no sandbox mv never ran: %q", out)
	}
	os.Remove(b)
	os.WriteFile(a, []byte("x"), 0o644)
	sb := &Sandbox{Writable: []string{project}, Hidden: []string{"mv"}}
	out, _ := runIn(t, project, raceScript, Options{Sandbox: sb, Judge: refuseFile(t, "/usr/bin/mv")})
	if exists(b) || !exists(a) || !strings.Contains(out, "done") {
		t.Errorf("mv ran: %q", out)
	}
}

// A hidden program's other names are found: a hard link in another folder of PATH,
// and not a link to it (it names the same file).
func TestHiddenFilesFindsOtherNames(t *testing.T) {
	bin, other := t.TempDir(), t.TempDir()
	prog := filepath.Join(bin, "prog")
	os.WriteFile(prog, []byte("#!/bin/sh\n"), 0o755)
	if err := os.Link(prog, filepath.Join(other, "alias")); err != nil {
		t.Skipf("no hard links here: %v", err)
	}
	os.Symlink(prog, filepath.Join(other, "soft"))
	os.WriteFile(filepath.Join(other, "unrelated"), []byte("#!/bin/sh\n"), 0o755)
	t.Setenv("PATH", bin+":"+other+":"+os.Getenv("PATH"))
	got := hiddenFiles([]string{"prog"})
	want := []string{filepath.Join(other, "alias"), prog}
	sort.Strings(want)
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("hiddenFiles = %v, want %v", got, want)
	}
	if got := hiddenFiles([]string{filepath.Join(other, "soft")}); strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("by a link's path: %v, want %v", got, want)
	}
	if got := hiddenFiles([]string{"no-such-program-here"}); len(got) != 0 {
		t.Errorf("a missing program: %v", got)
	}
}

// With Landlock only, a read-denied file inside a writable folder cannot be taken
// out of its grants, and Lost says so; a hidden program outside them can.
func TestSandboxLostLandlock(t *testing.T) {
	if underLandlock(t) {
		return
	}
	project := t.TempDir()
	env := filepath.Join(project, ".env")
	os.WriteFile(env, []byte("x"), 0o600)
	sb := &Sandbox{Writable: []string{project}, Unreadable: []string{env}, Hidden: []string{"mv"}}
	lost := strings.Join(Lost(sb), "\n")
	if !strings.Contains(lost, env) {
		t.Errorf("Lost does not name %s: %q", env, lost)
	}
	if strings.Contains(lost, "/mv") {
		t.Errorf("Lost names mv, which Landlock hides: %q", lost)
	}
}

// With bubblewrap nothing is lost.
func TestSandboxLostBubblewrap(t *testing.T) {
	needSandbox(t, BackendBubblewrap)
	if lost := Lost(&Sandbox{Unreadable: []string{"/etc/shadow"}, Hidden: []string{"mv"}}); len(lost) != 0 {
		t.Errorf("%q", lost)
	}
}
