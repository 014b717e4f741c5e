package procgroup

import (
	"context"
	"os/exec"
	"testing"
	"time"
)

func TestKillStopsTheWholeGroup(t *testing.T) {
	// A shell that ignores SIGTERM, with a grandchild in the background.
	cmd := Command(`trap '' TERM; sleep 30 & sleep 30`, t.TempDir(), nil)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	pgid := cmd.Process.Pid
	time.Sleep(100 * time.Millisecond)
	if !Alive(pgid) {
		t.Fatal("the group is not alive after start")
	}
	start := time.Now()
	Kill(pgid, 200*time.Millisecond)
	<-done
	if Alive(pgid) {
		t.Fatal("a member of the group survived")
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
