package procgroup

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestKillStopsTheWholeGroup(t *testing.T) {
	// A shell that ignores SIGTERM, with a grandchild in the background. It prints the
	// grandchild's pid once both are set up: the test goes on when it reads that line.
	cmd := Command(`trap '' TERM; sleep 30 & echo $!; sleep 30`, t.TempDir(), nil)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	cmd.Stdout = w
	if err := cmd.Start(); err != nil {
		w.Close()
		t.Fatal(err)
	}
	w.Close() // the shell and the grandchild hold it now
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	pgid := cmd.Process.Pid
	line, err := bufio.NewReader(r).ReadString('\n')
	grandchild, perr := strconv.Atoi(strings.TrimSpace(line))
	if err != nil || perr != nil {
		Kill(pgid, 0)
		t.Fatalf("the shell did not print its grandchild's pid: %q, %v", line, err)
	}
	if !Alive(pgid) || !inGroup(grandchild, pgid) {
		Kill(pgid, 0)
		t.Fatalf("after start the group is not alive or the grandchild %d is not in it", grandchild)
	}
	start := time.Now()
	Kill(pgid, 200*time.Millisecond)
	<-done
	if Alive(pgid) {
		t.Fatal("a member of the group survived")
	}
	// The shell ignored SIGTERM: it was the SIGKILL that ended it.
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("the shell ended with %v, want killed by SIGKILL", cmd.ProcessState)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("Kill took too long")
	}
	Kill(pgid, time.Second) // a gone group: returns at once
	Kill(0, time.Second)    // never our own group
	Kill(1, time.Second)    // nor init's
}

func TestCommandEnvironmentAndDir(t *testing.T) {
	dir := t.TempDir()
	out, err := Command(`echo "$X $(pwd)"`, dir, []string{"X=hello"}).Output()
	if err != nil || string(out) != "hello "+dir+"\n" {
		t.Fatalf("%q %v", out, err)
	}
}

func TestWaitEndings(t *testing.T) {
	start := func(script string) *exec.Cmd {
		cmd := Command(script, t.TempDir(), nil)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd
	}
	settled := false
	cmd := start(`sleep 30 & exit 3`)
	e := Wait(context.Background(), cmd, 10*time.Second, 100*time.Millisecond, func() { settled = true })
	if e.TimedOut || e.Cancelled || e.Err == nil || !settled || Alive(cmd.Process.Pid) {
		t.Fatalf("normal exit: %+v settled=%v", e, settled)
	}
	cmd = start(`sleep 30`)
	e = Wait(context.Background(), cmd, 100*time.Millisecond, 100*time.Millisecond, nil)
	if !e.TimedOut || Alive(cmd.Process.Pid) {
		t.Fatalf("timeout: %+v", e)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	cmd = start(`sleep 30`)
	e = Wait(ctx, cmd, 10*time.Second, 100*time.Millisecond, nil)
	if !e.Cancelled || Alive(cmd.Process.Pid) {
		t.Fatalf("cancel: %+v", e)
	}
}

// inGroup reports whether pid lives and belongs to the process group pgid.
func inGroup(pid, pgid int) bool {
	state, g, ok := procStat(strconv.Itoa(pid))
	return ok && g == pgid && state != 'Z' && state != 'X'
}
