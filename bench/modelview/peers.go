package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// peer is another coding agent measured the same way when it is on PATH: one prompt
// in its non-interactive mode, pointed at the fake server by its base-URL variable.
type peer struct {
	name string
	api  string
	args []string
}

var peers = []peer{
	{"claude", apiAnthropic, []string{"-p", "hello"}},
	{"codex", apiResponses, []string{"exec", "--skip-git-repo-check", "hello"}},
	{"opencode", apiAnthropic, []string{"run", "-m", "anthropic/claude-sonnet-4-5", "hello"}},
}

// peerResult is a peer's first request that declares tools, or why there is none.
type peerResult struct {
	peer
	req  *request
	note string
}

func (b *bench) peers() []peerResult {
	var out []peerResult
	for _, p := range peers {
		path, err := exec.LookPath(p.name)
		if err != nil {
			out = append(out, peerResult{peer: p, note: "not on PATH"})
			continue
		}
		req, err := b.peerRun(p, path)
		if err != nil {
			out = append(out, peerResult{peer: p, note: err.Error()})
			continue
		}
		out = append(out, peerResult{peer: p, req: req})
	}
	return out
}

func (b *bench) peerRun(p peer, path string) (*request, error) {
	var turns []fakellm.Turn
	for i := 0; i < 8; i++ { // peers may ask for titles or checks before the task
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Hello.")}})
	}
	srv := fakellm.New(turns...)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, p.args...)
	cmd.Dir = b.proj
	cmd.Env = append(b.gantryEnv(p.api, srv.URL(), ""), "ANTHROPIC_AUTH_TOKEN=bench")
	cmd.Stdin = strings.NewReader("")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	runErr := cmd.Run()
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
		return nil, fmt.Errorf("%s: %v: %s", p.name, runErr, cell(tail(out.String(), 200), 200))
	}
	return nil, fmt.Errorf("%s sent %d requests, none declaring tools", p.name, len(reqs))
}

func writePeers(w io.Writer, rs []peerResult) {
	fmt.Fprintln(w, "### Peers on PATH")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| peer | API | system | tools in the prompt | deferred tools | **fixed part** |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: |")
	for _, r := range rs {
		if r.req == nil {
			fmt.Fprintf(w, "| %s | %s | %s | | | |\n", r.name, apiName(r.api), cell(r.note, 200))
			continue
		}
		sys := bytesOf(r.req.System)
		n, tools := r.req.declared()
		dn, dsize := r.req.deferred()
		fmt.Fprintf(w, "| %s | %s | %s | %d: %s | %d: %s | **%s** |\n", r.name, apiName(r.req.API), bt(sys), n, bt(tools), dn, bt(dsize), tok(sys+tools))
	}
	fmt.Fprintln(w)
}
