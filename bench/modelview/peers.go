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

// peer is another coding agent measured the same way when it is on PATH: one prompt
// in its non-interactive mode, pointed at the fake server at url (its base-URL
// variable, or for codex a model provider of its own configuration).
type peer struct {
	name string
	api  string
	args func(url string) []string
}

var peers = []peer{
	{"claude", apiAnthropic, func(string) []string { return []string{"-p", "hello"} }},
	{"codex", apiResponses, func(url string) []string {
		return []string{"exec", "--skip-git-repo-check",
			"-c", fmt.Sprintf(`model_providers.bench={name="bench",base_url="%s/v1",wire_api="responses",env_key="OPENAI_API_KEY"}`, url),
			"-c", "model_provider=bench", "hello"}
	}},
	{"opencode", apiAnthropic, func(string) []string { return []string{"run", "-m", "anthropic/claude-sonnet-4-5", "hello"} }},
}

// peerResult is a peer's first request that declares tools, or why there is none.
type peerResult struct {
	peer
	version string
	req     *request
	note    string
	// session is the peer's prefix over a resumed session, or sessionNote why not.
	session     *sessionRun
	sessionNote string
}

func (b *bench) peers() []peerResult {
	var out []peerResult
	for _, p := range peers {
		path, err := exec.LookPath(p.name)
		if err != nil {
			out = append(out, peerResult{peer: p, note: "not on PATH"})
			continue
		}
		r := peerResult{peer: p, version: peerVersion(path)}
		if r.req, err = b.peerRun(p, path); err != nil {
			r.note = err.Error()
		} else if _, ok := peerSessions[p.name]; !ok {
			r.sessionNote = "no scripted session: its shell tool is not a plain function call"
		} else if r.session, err = b.peerPrefix(p, path); err != nil {
			r.sessionNote = err.Error()
		}
		out = append(out, r)
	}
	return out
}

// peerRun runs a peer until it has sent a request declaring tools (the task's, not a
// title's or a check's), then stops it and its children.
func (b *bench) peerRun(p peer, path string) (*request, error) {
	got := make(chan struct{})
	var once sync.Once
	srv := fakellm.NewFunc(func(r fakellm.Recorded) fakellm.Turn {
		if req, err := parseRequest(r.Path, r.Raw); err == nil && len(req.Tools) > 0 {
			once.Do(func() { close(got) })
		}
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Hello.")}}
	})
	defer srv.Close()
	cmd := exec.Command(path, p.args(srv.URL())...)
	cmd.Dir = b.proj
	cmd.Env = append(b.gantryEnv(p.api, srv.URL(), ""), "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1")
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	// Its own process group: a peer started through a Node wrapper leaves its native
	// binary behind when only the wrapper is killed.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", p.name, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	var runErr error
	select {
	case <-got:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	case runErr = <-exited:
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what it left running
	case <-time.After(2 * time.Minute):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
		runErr = fmt.Errorf("no request declaring tools within 2 minutes")
	}
	reqs, err := b.parseAll("peer-"+p.name, srv.Requests())
	if err != nil {
		return nil, err
	}
	for _, r := range reqs {
		if len(r.Tools) > 0 {
			return r, nil
		}
	}
	if runErr != nil {
		return nil, fmt.Errorf("%s: %v: %s", p.name, runErr, tail(out.String(), 200))
	}
	return nil, fmt.Errorf("%s sent %d requests, none declaring tools", p.name, len(reqs))
}

// peerVersion is the first line a peer's --version prints.
func peerVersion(path string) string {
	cmd := exec.Command(path, "--version")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.Output()
	if err != nil {
		return ""
	}
	line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
	return line
}

func writePeers(w io.Writer, rs []peerResult) error {
	fmt.Fprintln(w, "### Peers on PATH")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "The first request of one prompt (`hello`) that declares tools; a peer is stopped once it has sent it.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| peer | API | system | tools in the prompt | deferred tools | messages | **fixed part** |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: |")
	for _, r := range rs {
		if r.req == nil {
			fmt.Fprintf(w, "| %s | %s | %s | | | | |\n", r.name, apiName(r.api), cell(r.note, 200))
			continue
		}
		sys := bytesOf(r.req.System)
		n, tools := r.req.declared()
		dn, dsize := r.req.deferred()
		name := r.name
		if r.version != "" && !strings.Contains(r.version, r.name) {
			name += " " + r.version
		} else if r.version != "" {
			name = r.version
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d: %s | %d: %s | %s | **%s** |\n", name, apiName(r.req.API), bt(sys), n, bt(tools), dn, bt(dsize), bt(bytesOf(r.req.Messages)), tok(sys+tools))
	}
	fmt.Fprintln(w)
	runs, notes := map[string]*sessionRun{}, map[string]string{}
	for _, r := range rs {
		switch {
		case r.session != nil:
			runs[r.name] = r.session
		case r.sessionNote != "":
			notes[r.name] = r.sessionNote
		}
	}
	return writePeerSessions(w, runs, notes)
}
