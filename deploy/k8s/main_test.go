package k8s

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	code := m.Run()
	if gantryDir != "" {
		os.RemoveAll(gantryDir)
	}
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

var (
	gantryOnce sync.Once
	gantryDir  string // the folder of the gantry built for these tests, removed at the end
	gantryErr  error
)

// gantryBin builds gantry once for the tests that run task.sh and returns the folder
// holding it, to put first on PATH.
func gantryBin(t *testing.T) string {
	t.Helper()
	gantryOnce.Do(func() {
		if gantryDir, gantryErr = os.MkdirTemp("", "gantry-k8s-"); gantryErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(gantryDir, "gantry"), "../../cmd/gantry").CombinedOutput()
		if err != nil {
			gantryErr = fmt.Errorf("building gantry: %w\n%s", err, out)
		}
	})
	if gantryErr != nil {
		t.Fatal(gantryErr)
	}
	return gantryDir
}

// killGroupOnCancel runs cmd in a process group of its own, and has the end of its
// context kill the whole group (task.sh or bwrap, gantry, what gantry runs), not its
// leader alone; Wait then waits at most ten seconds more for the pipes to close.
func killGroupOnCancel(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
}
