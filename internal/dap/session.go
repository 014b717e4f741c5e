package dap

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sync"
	"time"

	godap "github.com/google/go-dap"

	"github.com/gantry-dev/gantry/internal/contain"
)

// Bounds of a session.
const (
	// maxOutput is what the session keeps of the debuggee's output between two reads
	// (the rest is counted, not kept: the head and the tail are).
	maxOutput = 256 << 10
	// maxLog is the tail of the adapter's own output kept for a crash report.
	maxLog = 8 << 10
	// maxMessages is what the session keeps of the adapter's messages (its output
	// events that are not the program's) between two reads.
	maxMessages = 16 << 10
	// killGrace is the time between SIGTERM and SIGKILL for the adapter's processes.
	killGrace = time.Second
	// disconnectWait bounds a polite disconnect before the processes are killed.
	disconnectWait = 2 * time.Second
)

// Options say how a session starts.
type Options struct {
	// Dir is the working folder of the adapter and the debuggee.
	Dir string
	// Policy is the session's: the adapter and the program it launches run under its
	// deny rules, sandbox and environment (nil: gantry's own).
	Policy *contain.Policy
	// Start bounds the start: the adapter's handshake and the launch (delve builds
	// the program in it). 0: two minutes.
	Start time.Duration
}

// State is where a session is.
type State string

const (
	Running    State = "running"
	Stopped    State = "stopped"
	Exited     State = "exited"     // the debuggee ended (ExitCode)
	Terminated State = "terminated" // the adapter ended the session
	Crashed    State = "crashed"    // the adapter's connection ended without terminating
)

// Snapshot is a session's state at one moment.
type Snapshot struct {
	State       State
	Reason      string // why it stopped (breakpoint, step, pause, exception, entry)
	Description string // the adapter's words for it, when it gives them
	ThreadID    int    // the thread that stopped
	ExitCode    *int
	// Signal is the signal that killed the program (0: it exited by itself), read
	// from ExitCode as the adapter's row says it reports one.
	Signal int
	// Stops counts the stops so far: a wait compares it with the count before.
	Stops int
	// Log is the tail of the adapter's own output (for a crash).
	Log string
}

// Over tells whether the session has ended.
func (s Snapshot) Over() bool {
	return s.State == Exited || s.State == Terminated || s.State == Crashed
}

// Session is one debug session: an adapter (started by gantry, or a debug server
// gantry connected to), its connection, and the debuggee's state and output.
type Session struct {
	Spec    *Spec
	Program string // as launched ("" for an attach)
	Port    int    // attached to (0 for a launch)
	Started time.Time

	client   *Client
	proc     *contain.Process // nil when gantry connected to a server it did not start
	ended    chan struct{}    // closed when proc has exited and been reaped
	stopProc context.CancelFunc
	caps     godap.Capabilities

	mu          sync.Mutex
	snap        Snapshot
	changed     chan struct{} // closed and replaced at every change of snap
	initialized chan struct{}
	initOnce    sync.Once
	pausing     bool // a pause was asked: the next stop is its
	stopSignal  int  // the signal the program last stopped on (0: none)
	launching   bool // a launch is being configured: the program has not run yet
	out         outputBuf
	messages    outputBuf
	log         tail
	buildDir    string // the folder the adapter builds the program in ("": none)
	closeOnce   sync.Once
	closeErr    error
}

func newSession(spec *Spec) *Session {
	return &Session{Spec: spec, Started: time.Now(), ended: make(chan struct{}), changed: make(chan struct{}),
		initialized: make(chan struct{}), snap: Snapshot{State: Running}, messages: outputBuf{max: maxMessages}}
}

func mustJSON(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err) // maps of strings and numbers
	}
	return b
}

// event is every event of the adapter (on the client's reader).
func (s *Session) event(m godap.Message) {
	switch e := m.(type) {
	case *godap.InitializedEvent:
		s.initOnce.Do(func() { close(s.initialized) })
	case *godap.StoppedEvent:
		s.update(func(sn *Snapshot) {
			sn.State, sn.Reason, sn.Description, sn.ThreadID = Stopped, e.Body.Reason, e.Body.Description, e.Body.ThreadId
			if sn.Description == "" {
				sn.Description = e.Body.Text
			}
			if s.pausing {
				// lldb reports the pause it was asked for as a SIGSTOP "exception".
				if sn.Reason != "pause" && sn.Description == "" {
					sn.Description = sn.Reason
				}
				sn.Reason, s.pausing = "pause", false
			}
			sn.Stops++
			s.stopSignal = 0
			if sn.Reason != "pause" { // lldb's SIGSTOP of a pause is no crash
				s.stopSignal = signalOfStop(sn.Description)
			}
		})
	case *godap.ContinuedEvent:
		s.update(func(sn *Snapshot) {
			if sn.State == Stopped {
				sn.State = Running
			}
		})
	case *godap.ExitedEvent:
		code := e.Body.ExitCode
		s.update(func(sn *Snapshot) {
			sn.State, sn.ExitCode = Exited, &code
			sn.Signal = exitSignal(s.Spec.ExitSignal, code, s.stopSignal)
		})
	case *godap.TerminatedEvent:
		s.update(func(sn *Snapshot) {
			if sn.State != Exited {
				sn.State = Terminated
			}
		})
	case *godap.OutputEvent:
		s.output(e.Body.Category, e.Body.Output)
	}
}

// output keeps an output event's text by its category: stdout and stderr are the
// program's (but before a launched program runs, when they are the adapter's:
// delve's "Building …"); console, important and any other category (none is
// console) are the adapter's own messages; telemetry is dropped.
func (s *Session) output(category, text string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch category {
	case "telemetry":
	case "stdout", "stderr":
		if s.launching {
			s.messages.add(text)
		} else {
			s.out.add(text)
		}
	default:
		s.messages.add(text)
	}
}

// watch marks the session crashed when the connection ends unasked.
func (s *Session) watch() {
	<-s.client.Done()
	s.update(func(sn *Snapshot) {
		if !sn.Over() {
			sn.State = Crashed
		}
	})
}

func (s *Session) update(f func(*Snapshot)) {
	s.mu.Lock()
	f(&s.snap)
	close(s.changed)
	s.changed = make(chan struct{})
	s.mu.Unlock()
}

// Snapshot is the session's state now (with the adapter's log when it crashed). A
// connection that ended unasked is a crash from the moment Done is closed.
func (s *Session) Snapshot() Snapshot {
	s.mu.Lock()
	sn := s.snap
	s.mu.Unlock()
	if !sn.Over() && s.client != nil {
		select {
		case <-s.client.Done():
			sn.State = Crashed
		default:
		}
	}
	if sn.State == Crashed {
		sn.Log = s.log.String()
	}
	return sn
}

// Done is closed when the connection to the adapter has ended.
func (s *Session) Done() <-chan struct{} { return s.client.Done() }

// Pid is the process gantry started for the adapter (the init of its PID namespace
// where there is one), 0 when gantry connected to a server it did not start.
func (s *Session) Pid() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.Pid()
}

// Wait waits until the session has stopped more than stops times, or is over, for
// bound at most; it returns the state then (Running when the bound passed).
func (s *Session) Wait(ctx context.Context, stops int, bound time.Duration) (Snapshot, error) {
	t := time.NewTimer(bound)
	defer t.Stop()
	for {
		s.mu.Lock()
		sn, ch := s.snap, s.changed
		s.mu.Unlock()
		if sn.Over() || sn.State == Stopped && sn.Stops > stops {
			return s.Snapshot(), nil
		}
		select {
		case <-s.client.Done():
			// The last events are read before the connection ends: what they said
			// stands (an exit), else the adapter crashed.
			return s.Snapshot(), nil
		default:
		}
		select {
		case <-ch:
		case <-s.client.Done():
			return s.Snapshot(), nil
		case <-t.C:
			return s.Snapshot(), nil
		case <-ctx.Done():
			return s.Snapshot(), ctx.Err()
		}
	}
}

// Output is the debuggee's output since the last call: its head and tail when it
// was more than the session keeps, with the count of what was cut.
func (s *Session) Output() (text string, cut int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.out.take()
}

// Messages are the adapter's own messages since the last call ("Type 'dlv help'…",
// "Process 12 exited with status = 0"), apart from the program's output; bounded
// like it.
func (s *Session) Messages() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	text, _ := s.messages.take()
	return text
}

// Close ends the session: a disconnect that terminates the debuggee, then the
// adapter's processes killed (all of them: they ran in a PID namespace of their own
// where the machine allows). It waits until they are gone.
func (s *Session) Close() error {
	s.closeOnce.Do(func() {
		if s.client != nil {
			ctx, cancel := context.WithTimeout(context.Background(), disconnectWait)
			// A debuggee gantry attached to is left running, as a debugger does.
			_, _ = s.do(ctx, &godap.DisconnectRequest{Request: godap.Request{Command: "disconnect"},
				Arguments: &godap.DisconnectArguments{TerminateDebuggee: s.Port == 0}})
			cancel()
			s.client.Close()
		}
		s.kill()
		s.removeBuildDir()
	})
	return s.closeErr
}

// removeBuildDir removes the folder the adapter built the program in, once its
// processes are gone.
func (s *Session) removeBuildDir() {
	if s.buildDir == "" {
		return
	}
	if err := os.RemoveAll(s.buildDir); err != nil {
		s.closeErr = fmt.Errorf("removing the debugged program's build folder: %w", err)
	}
}

// kill stops the adapter's processes and waits until they are reaped.
func (s *Session) kill() {
	if s.stopProc != nil {
		s.stopProc()
	}
	<-s.ended
}
