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

	"github.com/gantry-dev/gantry/internal/testenv"
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
	testenv.Recv(t, done, testenv.Bound, "the killed shell to be waited for")
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

// After a normal exit, WaitHangup hangs up the group: a child that ignores SIGHUP
// (nohup) or one that traps it lives on, in the group; a child that left the group
// (setsid) is not touched; a plain background child dies. The pids are read from the
// shell's output, the states from /proc.
func TestWaitHangupKeepsWhatWasDetached(t *testing.T) {
	dir := t.TempDir()
	cmd := Command(`nohup sleep 301 >/dev/null 2>&1 & echo $!
(trap 'echo hup >> trapped' HUP; while :; do sleep 0.05; done) >/dev/null 2>&1 & echo $!
setsid sleep 303 >/dev/null 2>&1 & echo $!
sleep 304 >/dev/null 2>&1 & echo $!`, dir, nil)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	pgid := cmd.Process.Pid
	var pids []int
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		n, err := strconv.Atoi(strings.TrimSpace(sc.Text()))
		if err != nil {
			t.Fatalf("the shell printed %q", sc.Text())
		}
		pids = append(pids, n)
	}
	t.Cleanup(func() {
		for _, pid := range pids {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		Kill(pgid, 0)
	})
	e := WaitHangup(context.Background(), cmd, 10*time.Second, 500*time.Millisecond, nil)
	if e.TimedOut || e.Cancelled || e.Err != nil || len(pids) != 4 {
		t.Fatalf("%+v, pids %v", e, pids)
	}
	nohup, trapped, escaped, plain := pids[0], pids[1], pids[2], pids[3]
	if !inGroup(nohup, pgid) {
		t.Error("the nohup child did not live on in the group")
	}
	if !inGroup(trapped, pgid) {
		t.Error("the child that traps SIGHUP did not live on")
	}
	if state, g, ok := procStat(strconv.Itoa(escaped)); !ok || g == pgid || state == 'Z' {
		t.Errorf("the setsid child: alive %v, group %d (the hook's %d)", ok && state != 'Z', g, pgid)
	}
	if inGroup(plain, pgid) {
		t.Error("the plain background child survived the hangup")
	}
	// The trap ran: the child saw the hangup.
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, _ := os.ReadFile(dir + "/trapped"); string(b) == "hup\n" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the trapping child never saw SIGHUP")
		}
		time.Sleep(10 * time.Millisecond)
	}
	// What lives on in the group is killed with it later (a timeout, say).
	Kill(pgid, 100*time.Millisecond)
	if Alive(pgid) {
		t.Error("Kill left members of the group")
	}
}

// A group with nothing left after its leader exits costs Hangup nothing.
func TestHangupOfAnEmptyGroupIsAtOnce(t *testing.T) {
	cmd := Command(`exit 0`, t.TempDir(), nil)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	WaitHangup(context.Background(), cmd, 10*time.Second, 5*time.Second, nil)
	if d := time.Since(start); d > 2*time.Second {
		t.Errorf("took %v", d)
	}
}

// Command prepares `bash -c script` in dir with env added, leading a session and
// process group of its own, as contain starts its loose processes.
func Command(script, dir string, env []string) *exec.Cmd {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	return cmd
}
