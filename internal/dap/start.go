package dap

import (
	"bufio"
	"context"
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

// How a session starts: the adapter launched (or a debug server attached to), its
// address read, and the configuration sequence up to the program's run.

// Launch starts the adapter of u, launches program (absolute) with args in
// o.Dir, with breakpoints (absolute file → lines) set before it runs, and returns
// once the launch is done: the program may already have stopped or exited (see
// Wait).
func Launch(ctx context.Context, u Usability, program string, args []string, breakpoints map[string][]int, o Options) (*Session, error) {
	s := newSession(u.Spec)
	s.Program = program
	largs := u.Spec.Launch(program, args, o.Dir)
	var tmp []string // the adapter's TMPDIR, when gantry gives it one
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
		// The folder is the adapter's temporary folder too: delve makes the named
		// pipes of the program's output there (and go build its work), which a delve
		// killed with its session, or with a gantry killed by kill -9, never removes.
		// The program inherits it: its temporary files go with the session.
		tmp = []string{"TMPDIR=" + dir}
	}
	if err := s.startAdapter(ctx, u.Command, o, tmp); err != nil {
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
	} else if err := s.startAdapter(ctx, u.Command, o, nil); err != nil {
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

var listening = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`listening at:?\s*\[?([0-9a-fA-F.:]+?)\]?:(\d+)`) })

// startAdapter starts the adapter contained (a PID namespace of its own where the
// machine allows: nothing it or the debuggee starts outlives the session) and
// connects to it: on its standard streams, or on the port it prints. env is added to
// the adapter's environment.
func (s *Session) startAdapter(ctx context.Context, command []string, o Options, env []string) error {
	if o.Start <= 0 {
		o.Start = 2 * time.Minute
	}
	argv := slices.Clone(command)
	if s.Spec.Listen {
		argv = append(argv, "--listen=127.0.0.1:0")
	}
	p := o.Policy.Process(contain.Spec{Argv: argv, Dir: o.Dir, Env: env, OwnProc: true})
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
				if m := listening().FindStringSubmatch(line); m != nil {
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

// pipeConn is an adapter's standard streams as one connection.
type pipeConn struct {
	r io.ReadCloser
	w io.WriteCloser
}

func (p pipeConn) Read(b []byte) (int, error) { return p.r.Read(b) }

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
