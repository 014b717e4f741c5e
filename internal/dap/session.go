package dap

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
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

// Launch starts the adapter of u, launches program (absolute) with args in
// o.Dir, with breakpoints (absolute file → lines) set before it runs, and returns
// once the launch is done: the program may already have stopped or exited (see
// Wait).
func Launch(ctx context.Context, u Usability, program string, args []string, breakpoints map[string][]int, o Options) (*Session, error) {
	s := newSession(u.Spec)
	s.Program = program
	largs := u.Spec.Launch(program, args, o.Dir)
	if u.Spec.BuildOutput != "" {
		// The built program goes to a folder of gantry's, not into the project: a
		// gantry killed by kill -9 leaves nothing there (the next one sweeps it).
		SweepStale()
		dir, err := newBuildDir()
		if err != nil {
			return nil, err
		}
		s.buildDir = dir
		largs[u.Spec.BuildOutput] = filepath.Join(dir, buildName)
	}
	if err := s.startAdapter(ctx, u.Command, o); err != nil {
		s.removeBuildDir()
		return nil, err
	}
	launch := &godap.LaunchRequest{Request: godap.Request{Command: "launch"}}
	launch.Arguments = mustJSON(largs)
	// What the adapter prints before the program runs is its own (delve's
	// "Building …", on stdout).
	s.mu.Lock()
	s.launching = true
	s.mu.Unlock()
	err := s.configure(ctx, launch, breakpoints, o)
	s.mu.Lock()
	s.launching = false
	s.mu.Unlock()
	if err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Attach connects to a program being debugged on port of this machine: directly
// when its debug server speaks DAP (delve headless, debugpy --listen), else through
// the adapter of u (lldb to a gdb-remote port).
func Attach(ctx context.Context, u Usability, port int, breakpoints map[string][]int, o Options) (*Session, error) {
	if u.Spec.Attach == nil {
		return nil, fmt.Errorf("the %s adapter cannot attach", u.Spec.ID)
	}
	s := newSession(u.Spec)
	s.Port = port
	if u.Spec.Direct {
		d := net.Dialer{Timeout: 5 * time.Second}
		conn, err := d.DialContext(ctx, "tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
		if err != nil {
			return nil, fmt.Errorf("no debug server answers on port %d: %v", port, err)
		}
		s.client = NewClient(conn, s.event)
		close(s.ended)
		go s.watch()
	} else if err := s.startAdapter(ctx, u.Command, o); err != nil {
		return nil, err
	}
	attach := &godap.AttachRequest{Request: godap.Request{Command: "attach"}}
	attach.Arguments = mustJSON(u.Spec.Attach(port))
	if err := s.configure(ctx, attach, breakpoints, o); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
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

var listening = regexp.MustCompile(`listening at:?\s*\[?([0-9a-fA-F.:]+?)\]?:(\d+)`)

// startAdapter starts the adapter contained (a PID namespace of its own where the
// machine allows: nothing it or the debuggee starts outlives the session) and
// connects to it: on its standard streams, or on the port it prints.
func (s *Session) startAdapter(ctx context.Context, command []string, o Options) error {
	if o.Start <= 0 {
		o.Start = 2 * time.Minute
	}
	argv := slices.Clone(command)
	if s.Spec.Listen {
		argv = append(argv, "--listen=127.0.0.1:0")
	}
	p := o.Policy.Process(contain.Spec{Argv: argv, Dir: o.Dir, OwnProc: true})
	stdin, err := p.Cmd.StdinPipe()
	if err != nil {
		return err
	}
	stdout, err := p.Cmd.StdoutPipe()
	if err != nil {
		return err
	}
	p.Cmd.Stderr = &s.log
	if err := p.Start(); err != nil {
		return fmt.Errorf("%s did not start: %v", argv[0], err)
	}
	s.proc = p
	pctx, cancel := context.WithCancel(context.Background())
	s.stopProc = cancel
	go func() {
		p.Wait(pctx, 0, killGrace, nil)
		close(s.ended)
	}()
	var conn io.ReadWriteCloser
	if s.Spec.Listen {
		addr, err := s.readAddress(ctx, stdout, o.Start)
		if err != nil {
			s.kill()
			return err
		}
		d := net.Dialer{Timeout: 5 * time.Second}
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			s.kill()
			return fmt.Errorf("%s listens at %s, which does not answer: %v", s.Spec.ID, addr, err)
		}
		conn = c
	} else {
		conn = pipeConn{stdout, stdin}
	}
	s.client = NewClient(conn, s.event)
	go s.watch()
	return nil
}

// readAddress reads the adapter's output until it says where it listens; what
// follows is kept in the log.
func (s *Session) readAddress(ctx context.Context, stdout io.Reader, bound time.Duration) (string, error) {
	found := make(chan string, 1)
	go func() {
		r := bufio.NewReader(stdout)
		sent := false
		for {
			line, err := r.ReadString('\n')
			s.log.Write([]byte(line))
			if !sent {
				if m := listening.FindStringSubmatch(line); m != nil {
					found <- net.JoinHostPort(m[1], m[2])
					sent = true
				}
			}
			if err != nil {
				if !sent {
					close(found)
				}
				return
			}
		}
	}()
	t := time.NewTimer(bound)
	defer t.Stop()
	select {
	case addr, ok := <-found:
		if !ok {
			return "", fmt.Errorf("%s exited before it listened%s", s.Spec.ID, s.logSuffix())
		}
		return addr, nil
	case <-t.C:
		return "", fmt.Errorf("%s did not say where it listens within %v%s", s.Spec.ID, bound, s.logSuffix())
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

func (s *Session) logSuffix() string {
	if l := strings.TrimSpace(s.log.String()); l != "" {
		return ": " + oneLine(l, 300)
	}
	return ""
}

// configure runs the start sequence every adapter accepts: initialize; the launch
// or attach sent without waiting; the initialized event (before or after its
// response); the breakpoints; configurationDone; then the launch's response.
func (s *Session) configure(ctx context.Context, req godap.RequestMessage, breakpoints map[string][]int, o Options) error {
	if o.Start <= 0 {
		o.Start = 2 * time.Minute
	}
	ctx, cancel := context.WithTimeout(ctx, o.Start)
	defer cancel()
	init := &godap.InitializeRequest{Request: godap.Request{Command: "initialize"}, Arguments: godap.InitializeRequestArguments{
		ClientID: "gantry", ClientName: "gantry", AdapterID: s.Spec.ID, Locale: "en", LinesStartAt1: true, ColumnsStartAt1: true,
		PathFormat: "path", SupportsVariableType: true, SupportsRunInTerminalRequest: false,
	}}
	resp, err := s.do(ctx, init)
	if err != nil {
		return s.startErr("initialize", err)
	}
	if r, ok := resp.(*godap.InitializeResponse); ok {
		s.caps = r.Body
	}
	pending, err := s.client.Send(req)
	if err != nil {
		return s.startErr(req.GetRequest().Command, err)
	}
	// The launch fails before initialized with some adapters (a program that does
	// not build): its response is watched meanwhile.
	respCh := make(chan error, 1)
	go func() {
		_, err := pending.Wait(ctx)
		respCh <- err
	}()
	var launchErr error
	launchDone := false
	select {
	case <-s.initialized:
	case launchErr = <-respCh:
		launchDone = true
		if launchErr != nil {
			return s.startErr(req.GetRequest().Command, launchErr)
		}
		select {
		case <-s.initialized:
		case <-ctx.Done():
			return s.startErr("initialized", ctx.Err())
		case <-s.client.Done():
			return s.startErr("initialized", ErrClosed)
		}
	case <-ctx.Done():
		return s.startErr("initialized", ctx.Err())
	case <-s.client.Done():
		return s.startErr("initialized", ErrClosed)
	}
	for _, file := range slices.Sorted(maps.Keys(breakpoints)) {
		if _, err := s.SetBreakpoints(ctx, file, breakpoints[file]); err != nil {
			return s.startErr("setBreakpoints", err)
		}
	}
	var filters []string
	for _, f := range s.caps.ExceptionBreakpointFilters {
		if f.Default {
			filters = append(filters, f.Filter)
		}
	}
	if len(filters) > 0 || s.Spec.ID != "delve" {
		ex := &godap.SetExceptionBreakpointsRequest{Request: godap.Request{Command: "setExceptionBreakpoints"},
			Arguments: godap.SetExceptionBreakpointsArguments{Filters: nonNil(filters)}}
		if _, err := s.do(ctx, ex); err != nil {
			return s.startErr("setExceptionBreakpoints", err)
		}
	}
	if s.caps.SupportsConfigurationDoneRequest {
		// The program runs from here on: what it prints is its own.
		s.mu.Lock()
		s.launching = false
		s.mu.Unlock()
		if _, err := s.do(ctx, &godap.ConfigurationDoneRequest{Request: godap.Request{Command: "configurationDone"}}); err != nil {
			return s.startErr("configurationDone", err)
		}
	}
	if !launchDone {
		if err := <-respCh; err != nil {
			return s.startErr(req.GetRequest().Command, err)
		}
	}
	return nil
}

// startErr says what failed in the start, with the adapter's last words when its
// connection ended.
func (s *Session) startErr(step string, err error) error {
	var re *ResponseError
	if errors.As(err, &re) {
		return fmt.Errorf("%s refused %s: %s", s.Spec.ID, re.Command, oneLine(re.Message, 600))
	}
	if errors.Is(err, ErrClosed) {
		return fmt.Errorf("%s ended during %s%s", s.Spec.ID, step, s.logSuffix())
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("%s did not finish %s in time%s", s.Spec.ID, step, s.logSuffix())
	}
	return fmt.Errorf("%s: %s: %v", s.Spec.ID, step, err)
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

// do sends a request and waits for its response, or for the connection's end.
func (s *Session) do(ctx context.Context, req godap.RequestMessage) (godap.ResponseMessage, error) {
	return s.client.Do(ctx, req)
}

// Resume runs a command that lets the debuggee go (continue, next, stepIn,
// stepOut) on thread and waits, for bound at most, until it stops again or ends.
func (s *Session) Resume(ctx context.Context, command string, thread int, bound time.Duration) (Snapshot, error) {
	before := s.Snapshot()
	if before.Over() {
		return before, nil
	}
	var req godap.RequestMessage
	switch command {
	case "continue":
		req = &godap.ContinueRequest{Request: godap.Request{Command: command}, Arguments: godap.ContinueArguments{ThreadId: thread}}
	case "next":
		req = &godap.NextRequest{Request: godap.Request{Command: command}, Arguments: godap.NextArguments{ThreadId: thread}}
	case "stepIn":
		req = &godap.StepInRequest{Request: godap.Request{Command: command}, Arguments: godap.StepInArguments{ThreadId: thread}}
	case "stepOut":
		req = &godap.StepOutRequest{Request: godap.Request{Command: command}, Arguments: godap.StepOutArguments{ThreadId: thread}}
	default:
		return before, fmt.Errorf("no such command %q", command)
	}
	s.update(func(sn *Snapshot) { sn.State = Running })
	if _, err := s.do(ctx, req); err != nil {
		s.update(func(sn *Snapshot) {
			if sn.State == Running && sn.Stops == before.Stops {
				sn.State = before.State // it did not go
			}
		})
		return s.Snapshot(), err
	}
	return s.Wait(ctx, before.Stops, bound)
}

// Pause asks the debuggee to stop and waits, for bound at most, until it has.
func (s *Session) Pause(ctx context.Context, thread int, bound time.Duration) (Snapshot, error) {
	before := s.Snapshot()
	if before.Over() || before.State == Stopped {
		return before, nil
	}
	s.mu.Lock()
	s.pausing = true
	s.mu.Unlock()
	if _, err := s.do(ctx, &godap.PauseRequest{Request: godap.Request{Command: "pause"}, Arguments: godap.PauseArguments{ThreadId: thread}}); err != nil {
		s.mu.Lock()
		s.pausing = false
		s.mu.Unlock()
		return s.Snapshot(), err
	}
	return s.Wait(ctx, before.Stops, bound)
}

// Threads lists the debuggee's threads.
func (s *Session) Threads(ctx context.Context) ([]godap.Thread, error) {
	resp, err := s.do(ctx, &godap.ThreadsRequest{Request: godap.Request{Command: "threads"}})
	if err != nil {
		return nil, err
	}
	if r, ok := resp.(*godap.ThreadsResponse); ok {
		return r.Body.Threads, nil
	}
	return nil, nil
}

// Stack is thread's frames, levels at most (0: all), and their total when the
// adapter tells it.
func (s *Session) Stack(ctx context.Context, thread, levels int) ([]godap.StackFrame, int, error) {
	resp, err := s.do(ctx, &godap.StackTraceRequest{Request: godap.Request{Command: "stackTrace"},
		Arguments: godap.StackTraceArguments{ThreadId: thread, Levels: levels}})
	if err != nil {
		return nil, 0, err
	}
	if r, ok := resp.(*godap.StackTraceResponse); ok {
		return r.Body.StackFrames, r.Body.TotalFrames, nil
	}
	return nil, 0, nil
}

// Scopes are a frame's scopes.
func (s *Session) Scopes(ctx context.Context, frame int) ([]godap.Scope, error) {
	resp, err := s.do(ctx, &godap.ScopesRequest{Request: godap.Request{Command: "scopes"}, Arguments: godap.ScopesArguments{FrameId: frame}})
	if err != nil {
		return nil, err
	}
	if r, ok := resp.(*godap.ScopesResponse); ok {
		return r.Body.Scopes, nil
	}
	return nil, nil
}

// Variables are the children of a reference, count at most (0: all the adapter
// gives).
func (s *Session) Variables(ctx context.Context, ref, count int) ([]godap.Variable, error) {
	resp, err := s.do(ctx, &godap.VariablesRequest{Request: godap.Request{Command: "variables"},
		Arguments: godap.VariablesArguments{VariablesReference: ref, Count: count}})
	if err != nil {
		return nil, err
	}
	if r, ok := resp.(*godap.VariablesResponse); ok {
		return r.Body.Variables, nil
	}
	return nil, nil
}

// Evaluate evaluates expression in frame (0: the adapter's default, its global
// scope), as a console would.
func (s *Session) Evaluate(ctx context.Context, expression string, frame int) (godap.EvaluateResponseBody, error) {
	ectx := s.Spec.EvaluateContext
	if ectx == "" {
		ectx = "repl"
	}
	resp, err := s.do(ctx, &godap.EvaluateRequest{Request: godap.Request{Command: "evaluate"},
		Arguments: godap.EvaluateArguments{Expression: expression, FrameId: frame, Context: ectx}})
	if err != nil {
		return godap.EvaluateResponseBody{}, err
	}
	if r, ok := resp.(*godap.EvaluateResponse); ok {
		return r.Body, nil
	}
	return godap.EvaluateResponseBody{}, nil
}

// SetBreakpoints replaces file's breakpoints with lines (none: cleared) and returns
// them as the adapter placed them (verified or not, moved to another line).
func (s *Session) SetBreakpoints(ctx context.Context, file string, lines []int) ([]godap.Breakpoint, error) {
	req := &setBreakpointsRequest{Request: godap.Request{Command: "setBreakpoints"}}
	req.Arguments.Source = godap.Source{Path: file}
	req.Arguments.Breakpoints = make([]godap.SourceBreakpoint, len(lines))
	for i, l := range lines {
		req.Arguments.Breakpoints[i] = godap.SourceBreakpoint{Line: l}
	}
	resp, err := s.do(ctx, req)
	if err != nil {
		return nil, err
	}
	if r, ok := resp.(*godap.SetBreakpointsResponse); ok {
		return r.Body.Breakpoints, nil
	}
	return nil, nil
}

// setBreakpointsRequest is go-dap's, except that an empty list is sent as one
// (go-dap omits it, and debugpy then fails the request and lets the program run).
type setBreakpointsRequest struct {
	godap.Request
	Arguments struct {
		Source      godap.Source             `json:"source"`
		Breakpoints []godap.SourceBreakpoint `json:"breakpoints"`
	} `json:"arguments"`
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

// pipeConn is an adapter's standard streams as one connection.
type pipeConn struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeConn) Read(b []byte) (int, error)  { return p.r.Read(b) }
func (p pipeConn) Write(b []byte) (int, error) { return p.w.Write(b) }
func (p pipeConn) Close() error {
	werr := p.w.Close()
	rerr := p.r.Close()
	if werr != nil && !errors.Is(werr, os.ErrClosed) {
		return werr
	}
	if rerr != nil && !errors.Is(rerr, os.ErrClosed) {
		return rerr
	}
	return nil
}

// outputBuf keeps output between two reads: all of it up to max (0: maxOutput),
// then the head and the tail of it, counting what was cut.
type outputBuf struct {
	max        int
	head, tail strings.Builder
	cut        int
}

func (o *outputBuf) add(s string) {
	limit := o.max
	if limit <= 0 {
		limit = maxOutput
	}
	if o.head.Len() < limit/4 {
		n := min(len(s), limit/4-o.head.Len())
		o.head.WriteString(s[:n])
		s = s[n:]
	}
	if s == "" {
		return
	}
	o.tail.WriteString(s)
	if o.tail.Len() > limit {
		t := o.tail.String()
		keep := t[len(t)-limit*3/4:]
		o.cut += len(t) - len(keep)
		o.tail.Reset()
		o.tail.WriteString(keep)
	}
}

func (o *outputBuf) take() (string, int) {
	text, cut := o.head.String(), o.cut
	if cut > 0 {
		text += fmt.Sprintf("\n[… %d bytes of output cut …]\n", cut)
	}
	text += o.tail.String()
	*o = outputBuf{max: o.max}
	return text, cut
}

// tail keeps the last maxLog bytes written to it.
type tail struct {
	mu  sync.Mutex
	buf []byte
}

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	t.buf = append(t.buf, b...)
	if len(t.buf) > maxLog {
		t.buf = append(t.buf[:0], t.buf[len(t.buf)-maxLog:]...)
	}
	t.mu.Unlock()
	return len(b), nil
}

func (t *tail) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.buf)
}

// oneLine is s on one line, at most n bytes.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		s = s[:n] + "…"
	}
	return s
}
