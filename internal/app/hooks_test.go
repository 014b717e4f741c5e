package app

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// judging plays the loop's script and answers a prompt hook's request (one without
// tools whose system prompt is the hook's) with verdict.
type judging struct {
	loop    *scripted.Provider
	verdict string

	mu     sync.Mutex
	judged []llm.Request
}

func (j *judging) Name() string { return "judging" }

func (j *judging) Stream(ctx context.Context, req llm.Request, emit func(llm.Delta)) (llm.Response, error) {
	if len(req.Tools) == 0 && strings.Contains(req.System, "You decide for a hook") {
		j.mu.Lock()
		j.judged = append(j.judged, req)
		j.mu.Unlock()
		return scripted.New(scripted.Step{Text: j.verdict, Usage: llm.Usage{InputTokens: 50, OutputTokens: 5}}).Stream(ctx, req, emit)
	}
	return j.loop.Stream(ctx, req, emit)
}

// recorder keeps the events of a session.
type recorder struct {
	mu sync.Mutex
	ev []face.Event
}

func (r *recorder) sink(e face.Event) { r.mu.Lock(); r.ev = append(r.ev, e); r.mu.Unlock() }

// finished returns the results of the calls, by call id.
func (r *recorder) finished() map[string]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string]string{}
	for _, e := range r.ev {
		if f, ok := e.(face.ToolFinished); ok {
			out[f.CallID] = f.Result.Text
		}
	}
	return out
}

func (r *recorder) notices() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.ev {
		if n, ok := e.(face.Notice); ok {
			out = append(out, n.Text)
		}
	}
	return out
}

// A prompt hook is judged by the session's model: {"ok": false} blocks the call with
// the model's reason, {"ok": true} lets it run. The request has the hook's prompt with
// the event's JSON, and no tools.
func TestPromptHookJudgedByTheModel(t *testing.T) {
	for _, c := range []struct {
		verdict, want string
	}{
		{`{"ok": false, "reason": "echo is not allowed here"}`, "bash was blocked by a PreToolUse hook: echo is not allowed here"},
		{`{"ok": true}`, "judged fine"},
	} {
		dir := project(t, "hooks:\n  PreToolUse:\n    - matcher: bash\n      hooks:\n        - type: prompt\n          prompt: 'Is this command harmless? $ARGUMENTS'\n          timeout: 20\n", map[string]string{})
		p := &judging{verdict: c.verdict, loop: scripted.New(
			scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo judged fine"}`}}},
			scripted.Step{Text: "done"},
		)}
		rec := &recorder{}
		a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
		if err != nil {
			t.Fatal(err)
		}
		end := a.Run(context.Background(), "run it", nil)
		a.Close()
		if end.StopReason != "end_turn" {
			t.Fatalf("end %+v", end)
		}
		if got := rec.finished()["c1"]; !strings.Contains(got, c.want) {
			t.Errorf("%s: the call ended with %q", c.verdict, got)
		}
		if len(p.judged) != 1 {
			t.Fatalf("%d judging requests", len(p.judged))
		}
		q := p.judged[0].Messages[0].Text()
		if !strings.HasPrefix(q, "Is this command harmless? {") || !strings.Contains(q, `"command":"echo judged fine"`) || !strings.Contains(q, `"hook_event_name":"PreToolUse"`) {
			t.Errorf("the model was asked %q", q)
		}
		if u, _ := a.agent.Usage(); u.InputTokens < 50 {
			t.Errorf("the judging tokens are not counted: %+v", u)
		}
	}
}

// What a SessionStart hook writes to CLAUDE_ENV_FILE reaches the session's later bash
// calls; the hook also sees CLAUDE_SESSION_ID.
func TestEnvFileReachesBash(t *testing.T) {
	dir := project(t, "hooks:\n  SessionStart:\n    - hooks:\n        - type: command\n          command: |\n            echo \"export FROM_HOOK='set by the hook'\" >> \"$CLAUDE_ENV_FILE\"\n            echo \"export SESSION=$CLAUDE_SESSION_ID\" >> \"$CLAUDE_ENV_FILE\"\n", map[string]string{})
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo \"$FROM_HOOK / $SESSION\""}`}}},
		scripted.Step{Text: "done"},
	)
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo"}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "show it", nil)
	envDir := a.envDir
	a.Close()
	if got, want := rec.finished()["c1"], "set by the hook / "+a.SessionID(); got != want {
		t.Errorf("bash printed %q, want %q", got, want)
	}
	if _, err := os.Stat(envDir); !os.IsNotExist(err) {
		t.Errorf("the env files are still there after Close: %v", err)
	}
}

// SessionEnd hooks run once, with the reason the face gives (other when it gives
// none), before the session's tools close; their failures come back as sentences.
func TestSessionEndHooksRunWithTheReason(t *testing.T) {
	dir := project(t, "hooks:\n  SessionEnd:\n    - hooks:\n        - type: command\n          command: 'cat >> \"$CLAUDE_PROJECT_DIR/end.jsonl\"; echo >> \"$CLAUDE_PROJECT_DIR/end.jsonl\"'\n    - matcher: clear\n      hooks:\n        - type: command\n          command: 'echo cleared >&2; exit 1'\n", map[string]string{})
	a := open(t, Options{Cwd: dir, LLM: scripted.New()})
	warnings := a.EndSession(EndClear)
	if len(warnings) != 1 || !strings.Contains(warnings[0], "SessionEnd hook: ") || !strings.Contains(warnings[0], "(stderr: cleared)") {
		t.Errorf("warnings %q", warnings)
	}
	if again := a.EndSession(EndOther); again != nil {
		t.Errorf("a second EndSession ran hooks: %q", again)
	}
	a.Close()
	b := open(t, Options{Cwd: dir, LLM: scripted.New()})
	b.Close() // no EndSession: the reason is other

	f, err := os.Open(filepath.Join(dir, "end.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var reasons []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var in map[string]any
		if err := json.Unmarshal(sc.Bytes(), &in); err != nil {
			t.Fatalf("%q: %v", sc.Text(), err)
		}
		if in["hook_event_name"] != "SessionEnd" {
			t.Errorf("stdin %v", in)
		}
		reasons = append(reasons, in["reason"].(string))
	}
	if strings.Join(reasons, ",") != "clear,other" {
		t.Errorf("reasons %q", reasons)
	}

	// A session that never started (New without Start) does not end with hooks.
	c, err := New(Options{Cwd: dir, LLM: scripted.New()})
	if err != nil {
		t.Fatal(err)
	}
	if w := c.EndSession(EndOther); w != nil {
		t.Errorf("an unstarted session ran SessionEnd: %q", w)
	}
	c.Close()
	if b, _ := os.ReadFile(filepath.Join(dir, "end.jsonl")); strings.Count(string(b), "\n") != 2 {
		t.Errorf("end.jsonl:\n%s", b)
	}
}

// A PreCompact hook that exits 2 does not stop /compact; its stderr is a notice.
func TestPreCompactExit2StillCompacts(t *testing.T) {
	dir := project(t, "hooks:\n  PreCompact:\n    - hooks:\n        - type: command\n          command: 'echo \"not backed up\" >&2; exit 2'\n", map[string]string{})
	p := scripted.New(scripted.Step{Text: "first answer"}, scripted.Step{Text: "SUMMARY of it"})
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: p}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	a.Run(context.Background(), "hello", nil)
	a.Run(context.Background(), "and again", nil)
	before, after, err := a.Compact(context.Background(), "")
	if err != nil || before != 4 || after >= before {
		t.Fatalf("Compact: %d → %d, %v", before, after, err)
	}
	if n := rec.notices(); len(n) == 0 || n[0] != "PreCompact hook: not backed up" {
		t.Errorf("notices %q", n)
	}
}

// The transcript of transcript_path holds one JSON object per message as it is
// stored — the prompt, the answer with its tool_use, the tool_result, the last answer
// — mode 0600 under the data folder; a resumed session appends to it.
func TestTranscriptLines(t *testing.T) {
	dir := project(t, "hooks:\n  Stop:\n    - hooks:\n        - type: command\n          command: 'cat > \"$CLAUDE_PROJECT_DIR/stop.json\"'\n", map[string]string{})
	p := scripted.New(
		scripted.Step{Text: "Let me look.", Calls: []scripted.Call{{ID: "c1", Name: "bash", Input: `{"command":"echo listed"}`}}},
		scripted.Step{Text: "It is listed."},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p, PermissionMode: "yolo", Model: "m1"}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	a.Run(context.Background(), "list it", nil)
	id := a.SessionID()
	path := a.transcript.path
	a.Close()
	if want := filepath.Join(os.Getenv("GANTRY_DATA_DIR"), "transcripts", id+".jsonl"); path != want {
		t.Errorf("transcript at %s, want %s", path, want)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("transcript %v %v", fi, err)
	}
	lines := transcriptLines(t, path)
	if len(lines) != 4 {
		t.Fatalf("%d lines: %v", len(lines), lines)
	}
	for _, l := range lines {
		if l["sessionId"] != id || l["cwd"] != dir || l["uuid"] == "" || l["timestamp"] == "" {
			t.Errorf("line %v", l)
		}
	}
	msg := func(i int) map[string]any { return lines[i]["message"].(map[string]any) }
	if lines[0]["type"] != "user" || msg(0)["content"] != "list it" {
		t.Errorf("line 1: %v", lines[0])
	}
	blocks := msg(1)["content"].([]any)
	use := blocks[1].(map[string]any)
	if lines[1]["type"] != "assistant" || msg(1)["model"] != "m1" || blocks[0].(map[string]any)["text"] != "Let me look." ||
		use["type"] != "tool_use" || use["id"] != "c1" || use["name"] != "bash" || use["input"].(map[string]any)["command"] != "echo listed" {
		t.Errorf("line 2: %v", lines[1])
	}
	if msg(1)["usage"] == nil {
		t.Errorf("line 2 has no usage: %v", lines[1])
	}
	res := msg(2)["content"].([]any)[0].(map[string]any)
	if lines[2]["type"] != "user" || res["type"] != "tool_result" || res["tool_use_id"] != "c1" || res["content"] != "listed" || res["is_error"] != false {
		t.Errorf("line 3: %v", lines[2])
	}
	if lines[3]["type"] != "assistant" || msg(3)["content"].([]any)[0].(map[string]any)["text"] != "It is listed." {
		t.Errorf("line 4: %v", lines[3])
	}

	// The Stop hook was given the transcript's path.
	var stop map[string]any
	if b, err := os.ReadFile(filepath.Join(dir, "stop.json")); err != nil || json.Unmarshal(b, &stop) != nil || stop["transcript_path"] != path {
		t.Errorf("the Stop hook's stdin %v lacks the transcript (%v)", stop, err)
	}

	b, err := newStarted(Options{Cwd: dir, LLM: scripted.New(scripted.Step{Text: "again"}), Resume: id}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	b.Run(context.Background(), "once more", nil)
	b.Close()
	lines = transcriptLines(t, path)
	if len(lines) != 6 || lines[4]["message"].(map[string]any)["content"] != "once more" {
		t.Fatalf("after resume: %d lines: %v", len(lines), lines[4:])
	}

	// A fork starts its own transcript with the conversation so far.
	c, err := newStarted(Options{Cwd: dir, LLM: scripted.New(), Resume: id, Fork: true}, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	forked := c.transcript.path
	c.Close()
	if forked == path || len(transcriptLines(t, forked)) != 6 {
		t.Errorf("the fork's transcript %s has %d lines", forked, len(transcriptLines(t, forked)))
	}
}

func transcriptLines(t *testing.T, path string) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []map[string]any
	for _, s := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
		var l map[string]any
		if err := json.Unmarshal([]byte(s), &l); err != nil {
			t.Fatalf("%q: %v", s, err)
		}
		out = append(out, l)
	}
	return out
}

// A transcript that cannot be written is said once, and the session goes on.
func TestTranscriptFailureIsOneNotice(t *testing.T) {
	dir := project(t, "", map[string]string{})
	// A file where the transcripts folder should be.
	if err := os.MkdirAll(os.Getenv("GANTRY_DATA_DIR"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(os.Getenv("GANTRY_DATA_DIR"), "transcripts"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	rec := &recorder{}
	a, err := newStarted(Options{Cwd: dir, LLM: scripted.New(scripted.Step{Text: "one"}, scripted.Step{Text: "two"})}, rec.sink, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	for _, prompt := range []string{"a", "b"} {
		if end := a.Run(context.Background(), prompt, nil); end.StopReason != "end_turn" {
			t.Fatalf("end %+v", end)
		}
	}
	n := 0
	for _, s := range rec.notices() {
		if strings.Contains(s, "transcript") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("notices %q", rec.notices())
	}
}
