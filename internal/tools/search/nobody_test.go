package search

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// runAsNobody runs the test named in a copy of this test binary started as the user
// nobody (root reads every folder, so permission failures need another user).
func runAsNobody(t *testing.T, name string) {
	t.Helper()
	base, err := os.MkdirTemp("", "gantry-search-nobody-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(base)
	if err := os.Chown(base, 65534, 65534); err != nil {
		t.Skipf("cannot hand a folder to nobody: %v", err)
	}
	bin := filepath.Join(base, "search.test")
	in, err := os.Open(os.Args[0])
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(bin, os.O_CREATE|os.O_WRONLY, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	out.Close()
	cmd := exec.Command(bin, "-test.run=^"+name+"$", "-test.v")
	cmd.Dir = base
	cmd.Env = append(os.Environ(), "TMPDIR="+base, "GOCACHE="+base, "HOME="+base)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("as nobody: %v\n%s", err, b)
	}
	t.Logf("as nobody:\n%s", b)
}
