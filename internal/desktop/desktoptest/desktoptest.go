//go:build !darwin

// Package desktoptest starts what the desktop tests need: an Xvfb display, a D-Bus
// session bus (and the accessibility bus it activates), GUI programs on them; each is
// stopped at the test's end.
package desktoptest

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// Need ends the test as testenv.Need says when a program it needs is missing.
func Need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		testenv.Need(t, p)
	}
}

// StartX starts Xvfb on a free display (it says which on -displayfd) and stops it at
// the test's end; it returns the display's name.
func StartX(t *testing.T, size string) string {
	t.Helper()
	display, _ := StartXStoppable(t, size)
	return display
}

// StartXStoppable is StartX, with a func that stops the display before the test ends.
func StartXStoppable(t *testing.T, size string) (string, func()) {
	t.Helper()
	Need(t, "Xvfb")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("Xvfb", "-displayfd", "3", "-screen", "0", size, "-nolisten", "tcp", "-ac")
	cmd.ExtraFiles = []*os.File{w}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			_ = cmd.Process.Signal(syscall.SIGTERM)
			_ = cmd.Wait()
		})
	}
	t.Cleanup(stop)
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(r).ReadString('\n')
		r.Close()
		line <- strings.TrimSpace(s)
	}()
	select {
	case n := <-line:
		if n == "" {
			t.Fatalf("Xvfb said no display: %s", stderr.String())
		}
		return ":" + n, stop
	case <-time.After(20 * time.Second):
		t.Fatalf("Xvfb did not start: %s", stderr.String())
	}
	return "", stop
}

// StartDBus starts a D-Bus session bus for the test and sets DBUS_SESSION_BUS_ADDRESS;
// the accessibility bus it activates ends with it.
func StartDBus(t *testing.T, display string) {
	t.Helper()
	Need(t, "dbus-daemon")
	cmd := exec.Command("dbus-daemon", "--session", "--nofork", "--print-address=1", "--print-pid=2")
	cmd.Env = append(os.Environ(), "DISPLAY="+display)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("dbus-daemon said no address: %v", err)
	}
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", strings.TrimSpace(addr))
	t.Cleanup(func() {
		// The bus and what it activated (at-spi-bus-launcher and its bus) go together.
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		killActivated(strings.TrimSpace(addr))
		_ = cmd.Wait()
	})
}

// killActivated ends the programs the session bus at addr activated (they are not in
// its process group): those whose environment names it.
func killActivated(addr string) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscanf(e.Name(), "%d", &pid); err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err == nil && bytes.Contains(env, []byte("DBUS_SESSION_BUS_ADDRESS="+addr)) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

// App starts a GUI program on display, in the test's session bus, and stops it at the
// end; out collects its stdout.
func App(t *testing.T, display string, name string, args ...string) (*exec.Cmd, *Output) {
	t.Helper()
	Need(t, name)
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "DISPLAY="+display, "GTK_A11Y=atspi", "NO_AT_BRIDGE=0", "GDK_BACKEND=x11", "GTK_OVERLAY_SCROLLING=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	out := &Output{}
	cmd.Stdout = out
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		_ = cmd.Wait()
	})
	return cmd, out
}

// Output collects a program's stdout.
type Output struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *Output) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *Output) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// WaitFor polls cond until it holds, failing the test after within.
func WaitFor(t *testing.T, what string, within time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(within)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited %v in vain for %s", within, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
