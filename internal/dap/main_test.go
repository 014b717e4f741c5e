package dap

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/contain"
)

// childEnv makes the test binary a gantry that holds a delve session of the project
// it names until it is killed (for the kill -9 test).
const childEnv = "GANTRY_DAP_TEST_CHILD"

func TestMain(m *testing.M) {
	if dir := os.Getenv(childEnv); dir != "" {
		os.Exit(holdSession(dir))
	}
	goleak.VerifyTestMain(m)
}

// holdSession launches dir's Go program under delve, stopped at line 10 of its
// main.go, says "ready BUILD-FOLDER" and waits to be killed.
func holdSession(dir string) int {
	specs := Defaults()
	u := Check(context.Background(), &specs[0], dir, "", nil)
	if u.Why != "" {
		fmt.Println("error", u.Why)
		return 1
	}
	s, err := Launch(context.Background(), u, dir, nil, map[string][]int{filepath.Join(dir, "main.go"): {10}},
		Options{Dir: dir, Policy: &contain.Policy{Env: func() []string { return []string{"GOFLAGS=-buildvcs=false"} }}})
	if err != nil {
		fmt.Println("error", err)
		return 1
	}
	if sn, _ := s.Wait(context.Background(), 0, time.Minute); sn.State != Stopped {
		fmt.Println("error: not stopped:", sn.State)
		return 1
	}
	fmt.Println("ready", s.buildDir)
	select {}
}
