package printmode

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// TerminalAsker answers the core's questions by asking the person at a terminal: print
// mode with --interactive. It writes to out and reads lines from in (normally both
// /dev/tty, so that stdin and stdout stay the task's). Questions are asked one at a
// time.
type TerminalAsker struct {
	mu    sync.Mutex
	lines chan string // fed by one reader goroutine, closed at the end of input
	done  chan struct{}
	once  sync.Once
	out   io.Writer
	// before runs before each question (the printer flushes what it holds).
	before func()
}

// OpenTerminal opens /dev/tty for questions; ok is false when no terminal is attached.
// closeFn closes the terminal, which also ends the reader.
func OpenTerminal(before func()) (a *TerminalAsker, closeFn func(), ok bool) {
	tty, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return nil, nil, false
	}
	a = NewTerminalAsker(tty, tty, before)
	return a, func() { a.Close(); tty.Close() }, true
}

// Close lets the reader goroutine end once its input does.
func (a *TerminalAsker) Close() { a.once.Do(func() { close(a.done) }) }

// NewTerminalAsker asks on out and reads answers from in, one line at a time, on a
// goroutine that ends when in does.
func NewTerminalAsker(in io.Reader, out io.Writer, before func()) *TerminalAsker {
	a := &TerminalAsker{lines: make(chan string), done: make(chan struct{}), out: out, before: before}
	go func() {
		defer close(a.lines)
		r := bufio.NewReader(in)
		for {
			s, err := r.ReadString('\n')
			if s != "" || err == nil {
				select {
				case a.lines <- strings.TrimSpace(s):
				case <-a.done:
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	return a
}

// readLine waits for the next answer line, or fails when ctx ends or input does.
func (a *TerminalAsker) readLine(ctx context.Context) (string, error) {
	select {
	case s, ok := <-a.lines:
		if !ok {
			return "", fmt.Errorf("the terminal closed before an answer: %w", io.EOF)
		}
		return s, nil
	case <-ctx.Done():
		fmt.Fprintln(a.out)
		return "", ctx.Err()
	}
}

func (a *TerminalAsker) start() {
	if a.before != nil {
		a.before()
	}
}

// AskPermission implements face.Asker.
func (a *TerminalAsker) AskPermission(ctx context.Context, req face.PermissionRequest) (face.Answer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.start()
	fmt.Fprintf(a.out, "\n? %s — %s\n", termtext.ToolLine(req.Call), req.Reason)
	if d := req.Preview.Diff; d != "" {
		for _, l := range diffLines(d, 40) {
			fmt.Fprintln(a.out, "  "+l)
		}
	}
	fmt.Fprintf(a.out, "  [y] allow once\n  [a] always allow %s, this session\n  [s] the same, and save it to the project's .gantry/permissions.yaml\n  [n] deny\n  [d] deny this call for the rest of the session\n", req.Always)
	for {
		fmt.Fprint(a.out, "  y/a/s/n/d > ")
		s, err := a.readLine(ctx)
		if err != nil {
			return face.DenyOnce, err
		}
		switch strings.ToLower(s) {
		case "y", "yes":
			return face.AllowOnce, nil
		case "a", "always":
			return face.AllowAlways, nil
		case "s", "save":
			return face.AllowAlwaysSaved, nil
		case "n", "no", "":
			return face.DenyOnce, nil
		case "d":
			return face.DenyAlways, nil
		}
	}
}

// diffLines are the lines of a unified diff worth showing, at most n of them.
func diffLines(diff string, n int) []string {
	var out []string
	more := 0
	for _, l := range strings.Split(strings.TrimRight(diff, "\n"), "\n") {
		if strings.HasPrefix(l, "+++ ") || strings.HasPrefix(l, "--- ") {
			continue
		}
		if len(out) == n {
			more++
			continue
		}
		out = append(out, l)
	}
	if more > 0 {
		out = append(out, fmt.Sprintf("… %d more diff line(s)", more))
	}
	return out
}

// AskUser implements face.Asker. An empty answer to the first question passes.
func (a *TerminalAsker) AskUser(ctx context.Context, qs []face.Question) (face.UserAnswer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.start()
	var ans face.UserAnswer
	for qi, q := range qs {
		fmt.Fprintln(a.out)
		if q.Header != "" {
			fmt.Fprintf(a.out, "[%s] ", q.Header)
		}
		fmt.Fprintf(a.out, "? %s\n", q.Question)
		if q.Context != "" {
			fmt.Fprintf(a.out, "  %s\n", q.Context)
		}
		for i, o := range q.Options {
			if o.Description != "" {
				fmt.Fprintf(a.out, "  %d. %s — %s\n", i+1, o.Label, o.Description)
			} else {
				fmt.Fprintf(a.out, "  %d. %s\n", i+1, o.Label)
			}
		}
		for {
			fmt.Fprint(a.out, answerHint(q, qi == 0))
			s, err := a.readLine(ctx)
			if err != nil {
				return face.UserAnswer{}, err
			}
			if s == "" && qi == 0 {
				return face.UserAnswer{Passed: true}, nil
			}
			if picked, ok := pick(q, s); ok {
				ans.Answers = append(ans.Answers, picked)
				break
			}
		}
	}
	return ans, nil
}

func answerHint(q face.Question, canPass bool) string {
	var parts []string
	switch {
	case len(q.Options) > 0 && q.MultiSelect:
		parts = append(parts, "numbers separated by commas")
	case len(q.Options) > 0:
		parts = append(parts, "a number")
	}
	if q.AllowFreeText || len(q.Options) == 0 {
		parts = append(parts, "your own words")
	}
	if canPass {
		parts = append(parts, "empty to pass")
	}
	return "  (" + strings.Join(parts, ", ") + ") > "
}

// pick reads an answer: option numbers, or free text where allowed.
func pick(q face.Question, s string) ([]string, bool) {
	if len(q.Options) > 0 {
		var labels []string
		ok := true
		for _, f := range strings.Split(s, ",") {
			n, err := strconv.Atoi(strings.TrimSpace(f))
			if err != nil || n < 1 || n > len(q.Options) {
				ok = false
				break
			}
			labels = append(labels, q.Options[n-1].Label)
		}
		if ok && (q.MultiSelect || len(labels) == 1) {
			return labels, true
		}
	}
	if (q.AllowFreeText || len(q.Options) == 0) && s != "" {
		return []string{s}, true
	}
	return nil, false
}

// ApprovePlan implements face.Asker.
func (a *TerminalAsker) ApprovePlan(ctx context.Context, req face.PlanRequest) (face.PlanAnswer, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.start()
	fmt.Fprintf(a.out, "\n── plan ──\n%s\n──────────\n", strings.TrimSpace(req.Plan))
	for _, l := range req.GrantLines() {
		fmt.Fprintln(a.out, l)
	}
	for {
		fmt.Fprint(a.out, "  [y] approve  [e] approve and accept edits  [n] reject > ")
		s, err := a.readLine(ctx)
		if err != nil {
			return face.PlanAnswer{}, err
		}
		switch strings.ToLower(s) {
		case "y", "yes":
			return face.PlanAnswer{Approved: true}, nil
		case "e":
			return face.PlanAnswer{Approved: true, Mode: permission.ModeAcceptEdits}, nil
		case "n", "no":
			fmt.Fprint(a.out, "  what should change? > ")
			fb, err := a.readLine(ctx)
			if err != nil {
				return face.PlanAnswer{}, err
			}
			return face.PlanAnswer{Feedback: fb}, nil
		}
	}
}
