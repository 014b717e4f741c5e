package dap

import (
	"context"
	"fmt"
	"time"

	godap "github.com/google/go-dap"
)

// The requests a running session answers: resuming and pausing, threads, the stack,
// scopes, variables, evaluation and breakpoints.

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
