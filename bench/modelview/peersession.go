package main

import (
	"bytes"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// peerSession is how a peer runs a short session that is resumed the next day: the
// first prompt's arguments, the resumed prompt's, and a shell call of its own tool
// (nil: the peer's shell tool is not a plain function, so its turns are text only).
type peerSession struct {
	first, resume []string
	call          func(i int) (name, args string)
}

var peerSessions = map[string]peerSession{
	"claude": {
		first:  []string{"-p", "run the checks", "--allowedTools", "Bash(echo:*)"},
		resume: []string{"-p", "--continue", "run them again", "--allowedTools", "Bash(echo:*)"},
		call: func(i int) (string, string) {
			return "Bash", fmt.Sprintf(`{"command":"echo check %d","description":"Echo check %d"}`, i, i)
		},
	},
	"opencode": {
		first:  []string{"run", "-m", "anthropic/claude-sonnet-4-5", "run the checks"},
		resume: []string{"run", "-m", "anthropic/claude-sonnet-4-5", "--continue", "run them again"},
		call: func(i int) (string, string) {
			return "bash", fmt.Sprintf(`{"command":"echo check %d","description":"Echo check %d"}`, i, i)
		},
	},
}

// peerCalls is the number of shell calls of each of the peer session's two prompts.
const peerCalls = 4

// peerPrefix runs a peer's session and returns its requests that declare tools,
// labelled, or why it could not.
func (b *bench) peerPrefix(p peer, path string) (*sessionRun, error) {
	ps, ok := peerSessions[p.name]
	if !ok {
		return nil, fmt.Errorf("no scripted session for %s", p.name)
	}
	var mu sync.Mutex
	calls := 0
	srv := fakellm.NewFunc(func(r fakellm.Recorded) fakellm.Turn {
		req, err := parseRequest(r.Path, r.Raw)
		if err != nil || len(req.Tools) == 0 {
			return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Checks")}} // a title or a check
		}
		mu.Lock()
		defer mu.Unlock()
		calls++
		if calls%(peerCalls+1) == 0 {
			return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("All checks ran.")}}
		}
		name, args := ps.call(calls)
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Next check."), fakellm.ToolCall(fmt.Sprintf("toolu_%02d", calls), name, args)}}
	})
	defer srv.Close()
	for day, args := range [][]string{ps.first, ps.resume} {
		tz := dayOneTZ
		if day == 1 {
			tz = dayTwoTZ
		}
		if err := b.runPeer(p, path, srv.URL(), tz, args); err != nil {
			return nil, err
		}
	}
	all, err := b.parseAll("peer-session-"+p.name, srv.Requests())
	if err != nil {
		return nil, err
	}
	run := &sessionRun{API: p.api}
	for _, r := range all {
		if len(r.Tools) == 0 {
			continue
		}
		n := len(run.Reqs)
		label := fmt.Sprintf("prompt 1, request %d", n+1)
		if n >= peerCalls+1 {
			label = fmt.Sprintf("prompt 2 (resumed the next day), request %d", n-peerCalls)
		}
		run.Reqs, run.Labels = append(run.Reqs, r), append(run.Labels, label)
	}
	if len(run.Reqs) != 2*(peerCalls+1) {
		return nil, fmt.Errorf("%s sent %d requests declaring tools, the script has %d", p.name, len(run.Reqs), 2*(peerCalls+1))
	}
	return run, nil
}

// runPeer runs one prompt of a peer to its end, in its own process group, which is
// killed after it (a Node wrapper can leave its native binary behind).
func (b *bench) runPeer(p peer, path, url, tz string, args []string) error {
	cmd := exec.Command(path, args...)
	cmd.Dir = b.proj
	cmd.Env = append(b.gantryEnv(p.api, url, tz), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", p.name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var err error
	select {
	case err = <-exited:
	case <-time.After(3 * time.Minute):
		err = fmt.Errorf("not done within 3 minutes")
	}
	_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	if err != nil {
		select {
		case <-exited:
		default:
		}
		return fmt.Errorf("%s %s: %v: %s", p.name, strings.Join(args, " "), err, tail(out.String(), 300))
	}
	return nil
}

// writePeerSessions prints the peers' prefix breaks.
func writePeerSessions(w io.Writer, runs map[string]*sessionRun, notes map[string]string) error {
	if len(runs)+len(notes) == 0 {
		return nil
	}
	fmt.Fprintf(w, "Peers' prefix over a session of %d shell calls, ended and resumed the next day (`--continue`, TZ=%s then TZ=%s), its requests that declare tools:\n\n", 2*peerCalls, dayOneTZ, dayTwoTZ)
	fmt.Fprintln(w, "| peer | requests | breaks | re-cached in all | where |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- |")
	for _, p := range peers {
		if note, ok := notes[p.name]; ok {
			fmt.Fprintf(w, "| %s | | | | %s |\n", p.name, cell(note, 200))
			continue
		}
		r, ok := runs[p.name]
		if !ok {
			continue
		}
		var where []string
		bs, err := r.breakList()
		if err != nil {
			return err
		}
		breaks, lost := len(bs), 0
		for _, br := range bs {
			lost += br.Lost
			at := br.Where
			if br.Detail != "" {
				at += ": " + br.Detail
			}
			where = append(where, fmt.Sprintf("%d→%d %s (%s)", br.I, br.I+1, at, r.Labels[br.I]))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s |\n", p.name, len(r.Reqs), breaks, tok(lost), cell(strings.Join(where, "; "), 400))
	}
	fmt.Fprintln(w)
	return nil
}
