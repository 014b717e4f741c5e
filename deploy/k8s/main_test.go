package k8s

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

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
