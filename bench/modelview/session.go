package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// step is one prompt of the scripted session: the mode set before it (a person's
// switch, session/set_mode), the calls the fake model makes, one a response, and a
// closing answer. resume starts a new gantry process that loads the session first.
type step struct {
	resume bool
	mode   string
	prompt string
	calls  [][2]string // tool name, JSON arguments
}

// sessionSteps is a 20-request session (21 on Chat Completions): two prompts at
// work, one in plan mode, one carrying the plan out, then the next day a resumed
// session with two more, the last finding a deferred tool by a tool search.
var sessionSteps = []step{
	{prompt: "Where does the program start?", calls: [][2]string{{"read_file", `{"path":"main.go"}`}, {"bash", `{"command":"cat go.mod"}`}}},
	{prompt: "Which packages use needle?", calls: [][2]string{{"grep", `{"pattern":"needle0 =","path":"tree","head_limit":5}`}, {"glob", `{"pattern":"*.go"}`}}},
	{mode: "plan", prompt: "Plan how to greet by name.", calls: [][2]string{{"read_file", `{"path":"main.go"}`}, {"grep", `{"pattern":"Println","path":"."}`}}},
	{mode: "yolo", prompt: "Go ahead.", calls: [][2]string{
		{"edit_file", `{"path":"main.go","edits":[{"old":"fmt.Println(\"hello\")","new":"fmt.Println(\"hello, world\")"}]}`},
		{"bash", `{"command":"cat main.go"}`}}},
	{resume: true, prompt: "Good morning. Is the change still there?", calls: [][2]string{{"read_file", `{"path":"main.go"}`}, {"bash", `{"command":"git diff --stat"}`}}},
	{prompt: "Tidy up and tell me what is left.", calls: [][2]string{
		{searchCall, "todo_read"}, {"grep", `{"pattern":"lookup","path":"tree/pkg00","head_limit":3}`},
		{"read_file", `{"path":"tree/pkg00/file00.go"}`}, {"bash", `{"command":"git status --short"}`}}},
}

// searchCall, as a call's tool name, is a tool search that finds the tool named
// as its arguments and calls it: the API's own search (Anthropic, Responses: one
// response with the search's blocks and the call), or gantry's tool_search on Chat
// Completions (a response calling tool_search, then one calling the tool found). A
// binary that defers nothing just calls the tool; the old one's tool_search call is
// answered that there is no such tool.
const searchCall = "@search"

// The time zones of the two days: 26 hours apart, so the local dates always differ.
const (
	dayOneTZ = "Etc/GMT+12"
	dayTwoTZ = "Etc/GMT-14"
)

// sessionRun is the requests of the scripted session for one API, each with what led
// to it.
type sessionRun struct {
	API    string
	Reqs   []*request
	Labels []string
}

// sessionTurns is the fake model's script for steps on api, and a label for each
// request: what led to it.
func sessionTurns(steps []step, api string) ([]fakellm.Turn, []string) {
	var turns []fakellm.Turn
	var labels []string
	for k, s := range steps {
		led := fmt.Sprintf("prompt %d", k+1)
		switch {
		case s.resume:
			led += " (resumed the next day)"
		case s.mode != "":
			led += " (mode " + s.mode + ")"
		}
		answer := func(parts ...fakellm.Part) {
			turns = append(turns, fakellm.Turn{Parts: parts})
			labels = append(labels, led)
		}
		for j, c := range s.calls {
			id := fmt.Sprintf("s%dc%d", k+1, j+1)
			switch {
			case c[0] == searchCall && api == apiChat:
				answer(fakellm.Text("Let me find the tool."), fakellm.ToolCall(id+"s", "tool_search", `{"query":"select:`+c[1]+`"}`))
				led = fmt.Sprintf("prompt %d, after tool_search", k+1)
				answer(fakellm.ToolCall(id, c[1], `{}`))
			case c[0] == searchCall:
				answer(fakellm.Text("Let me find the tool."), fakellm.ToolSearch(id+"s", c[1]), fakellm.ToolFound(id+"s", c[1]), fakellm.ToolCall(id, c[1], `{}`))
			default:
				answer(fakellm.Text("Let me look."), fakellm.ToolCall(id, c[0], c[1]))
			}
			name := c[0]
			if name == searchCall {
				name = c[1] + " (found by a tool search)"
			}
			led = fmt.Sprintf("prompt %d, after %s", k+1, name)
		}
		answer(fakellm.Text(fmt.Sprintf("Done with step %d.", k+1)))
	}
	return turns, labels
}

// session runs the scripted session through gantry acp for one API: day one in one
// process, then the next day another process loads the session and goes on.
func (b *bench) session(api string) (*sessionRun, error) {
	turns, labels := sessionTurns(sessionSteps, api)
	srv := fakellm.New(turns...)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	var c *acpClient
	var id string
	for k, s := range sessionSteps {
		if k == 0 || s.resume {
			tz := dayOneTZ
			if s.resume {
				tz = dayTwoTZ
				if err := c.close(); err != nil {
					return nil, err
				}
			}
			var err error
			if c, err = b.startACP(ctx, api, srv.URL(), tz); err != nil {
				return nil, err
			}
			defer c.kill()
			if _, err := c.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); err != nil {
				return nil, err
			}
			if k == 0 {
				res, err := c.call("session/new", map[string]any{"cwd": b.proj, "mcpServers": []any{}})
				if err != nil {
					return nil, err
				}
				var v struct {
					SessionID string `json:"sessionId"`
				}
				if err := json.Unmarshal(res, &v); err != nil || v.SessionID == "" {
					return nil, fmt.Errorf("session/new answered %s", res)
				}
				id = v.SessionID
			} else if _, err := c.call("session/load", map[string]any{"sessionId": id, "cwd": b.proj, "mcpServers": []any{}}); err != nil {
				return nil, err
			}
		}
		if s.mode != "" {
			if _, err := c.call("session/set_mode", map[string]any{"sessionId": id, "modeId": s.mode}); err != nil {
				return nil, err
			}
		}
		res, err := c.call("session/prompt", map[string]any{"sessionId": id, "prompt": []any{map[string]any{"type": "text", "text": s.prompt}}})
		if err != nil {
			return nil, err
		}
		if !strings.Contains(string(res), "end_turn") {
			return nil, fmt.Errorf("%s session, prompt %d ended %s", api, k+1, res)
		}
	}
	if err := c.close(); err != nil {
		return nil, err
	}
	reqs, err := b.parseAll("session-"+api, srv.Requests())
	if err != nil {
		return nil, err
	}
	if len(reqs) != len(labels) {
		return nil, fmt.Errorf("%s session: gantry sent %d requests, the script has %d", api, len(reqs), len(labels))
	}
	return &sessionRun{API: api, Reqs: reqs, Labels: labels}, nil
}

// acpClient is a bare JSON-RPC line client of gantry acp. It refuses whatever the
// agent asks of it (the session runs in yolo and plan modes: nothing is asked).
type acpClient struct {
	cmd  *exec.Cmd
	in   io.WriteCloser
	sc   *bufio.Scanner
	id   int
	errs *strings.Builder
}

func (b *bench) startACP(ctx context.Context, api, url, tz string) (*acpClient, error) {
	cmd := exec.CommandContext(ctx, b.bin, "acp", "--provider", api, "--permission-mode", "yolo")
	cmd.Dir = b.proj
	cmd.Env = b.gantryEnv(api, url, tz)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	errs := &strings.Builder{}
	cmd.Stderr = errs
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting gantry acp: %w", err)
	}
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	return &acpClient{cmd: cmd, in: in, sc: sc, errs: errs}, nil
}

// call sends a request and returns its result, reading past notifications.
func (c *acpClient) call(method string, params any) (json.RawMessage, error) {
	c.id++
	if err := c.send(map[string]any{"jsonrpc": "2.0", "id": c.id, "method": method, "params": params}); err != nil {
		return nil, err
	}
	for c.sc.Scan() {
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(c.sc.Bytes(), &msg); err != nil {
			return nil, fmt.Errorf("%s: reading gantry acp's output: %w", method, err)
		}
		switch {
		case msg.Method != "" && msg.ID != nil:
			// A request of the agent's: answer that the client cannot.
			if err := c.send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "the benchmark's client answers nothing"}}); err != nil {
				return nil, err
			}
		case msg.Method == "" && string(msg.ID) == fmt.Sprint(c.id):
			if msg.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, msg.Error)
			}
			return msg.Result, nil
		}
	}
	return nil, fmt.Errorf("%s: gantry acp closed its output (%v): %s", method, c.sc.Err(), tail(c.errs.String(), 2000))
}

func (c *acpClient) send(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = c.in.Write(append(b, '\n'))
	return err
}

// close ends the agent's input and waits for it to exit.
func (c *acpClient) close() error {
	if err := c.in.Close(); err != nil {
		return err
	}
	if err := c.cmd.Wait(); err != nil {
		return fmt.Errorf("gantry acp: %w: %s", err, tail(c.errs.String(), 2000))
	}
	return nil
}

// kill stops the agent if it is still running (after a failure).
func (c *acpClient) kill() {
	if c.cmd.ProcessState == nil && c.cmd.Process != nil {
		_ = c.cmd.Process.Kill()
		_ = c.cmd.Wait()
	}
}

// brk is one prefix break of a session: between request I and I+1 (0-based I).
type brk struct {
	I int
	*prefixBreak
}

// breakList returns the prefix breaks of a session, in order.
func (r *sessionRun) breakList() ([]brk, error) {
	prev, err := r.Reqs[0].prefix()
	if err != nil {
		return nil, err
	}
	var out []brk
	for i := 1; i < len(r.Reqs); i++ {
		cur, err := r.Reqs[i].prefix()
		if err != nil {
			return nil, err
		}
		if br := comparePrefix(prev, cur); br != nil {
			out = append(out, brk{i, br})
		}
		prev = cur
	}
	return out, nil
}

// breaks counts the prefix breaks of a session and the bytes they re-cache.
func (r *sessionRun) breaks() (n, lost int, err error) {
	bs, err := r.breakList()
	for _, b := range bs {
		lost += b.Lost
	}
	return len(bs), lost, err
}

// acpSessionHow says how the session of sessionSteps is run.
var acpSessionHow = fmt.Sprintf("Through `gantry acp`: two prompts, one in plan mode (session/set_mode), one back in yolo carrying it out, then the process ends and another loads the session (session/load) \"the next day\" (TZ=%s, then TZ=%s: 26 hours apart) for two more, the last of which finds todo_read by a tool search (the API's own; gantry's tool_search on Chat Completions, one request more) and calls it.", dayOneTZ, dayTwoTZ)

// writeSessions prints the prefix stability of each run, how saying how they were made.
func writeSessions(w io.Writer, runs []*sessionRun, how string) error {
	fmt.Fprintf(w, "### Prefix stability over %d requests\n\n", len(runs[0].Reqs))
	fmt.Fprintf(w, "%s A break is where request i's tools, system and messages (cache_control markers left out) stop being the start of request i+1's; re-cached is what request i held from there on, in tokens.\n\n", how)
	fmt.Fprintln(w, "| API | requests | breaks | re-cached in all | where |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- |")
	var details []string
	for _, r := range runs {
		var where []string
		bs, err := r.breakList()
		if err != nil {
			return err
		}
		breaks, lost := len(bs), 0
		for _, br := range bs {
			i := br.I
			lost += br.Lost
			at := br.Where
			if br.What != "" && br.Where != "tools" {
				at += " (" + br.What + ")"
			}
			where = append(where, fmt.Sprintf("%d→%d %s", i, i+1, at))
			d := br.Detail
			if d == "" {
				d = "—"
			}
			details = append(details, fmt.Sprintf("| %s | %d → %d | %s | %s | %s | %s |", apiName(r.API), i, i+1, r.Labels[i], at, d, tok(br.Lost)))
		}
		fmt.Fprintf(w, "| %s | %d | %d | %s | %s |\n", apiName(r.API), len(r.Reqs), breaks, tok(lost), strings.Join(where, "; "))
	}
	fmt.Fprintln(w)
	if len(details) > 0 {
		fmt.Fprintln(w, "| API | requests | request i+1 follows | broke at | what changed | re-cached |")
		fmt.Fprintln(w, "| --- | --- | --- | --- | --- | ---: |")
		for _, d := range details {
			fmt.Fprintln(w, d)
		}
		fmt.Fprintln(w)
	}
	return nil
}
