package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/search"
	"github.com/gantry-dev/gantry/internal/tools/shell"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

type echoArgs struct {
	Text  string `json:"text"`
	Sleep int    `json:"sleep_ms,omitempty"`
}

// testTools declares echo (read), write (write) and run (exec); running counts the
// echo calls running at the same time.
func testTools(running, peak *int32) *tool.Registry {
	r := tool.NewRegistry()
	echo := func(name string, level tool.Level) tool.Tool {
		return tool.New(tool.Def[echoArgs]{
			Name: name, Description: name, Level: level, Kind: tool.KindOther,
			Principal: func(a echoArgs) string { return a.Text },
			Run: func(ctx context.Context, env tool.Env, a echoArgs) tool.Result {
				n := atomic.AddInt32(running, 1)
				for {
					p := atomic.LoadInt32(peak)
					if n <= p || atomic.CompareAndSwapInt32(peak, p, n) {
						break
					}
				}
				defer atomic.AddInt32(running, -1)
				select {
				case <-time.After(time.Duration(a.Sleep) * time.Millisecond):
				case <-ctx.Done():
					return tool.Fail("interrupted")
				}
				return tool.Result{Text: name + ":" + a.Text}
			},
		})
	}
	r.Add(echo("echo", tool.LevelRead))
	r.Add(echo("write", tool.LevelWrite))
	r.Add(echo("run", tool.LevelExec))
	return r
}

type events struct {
	mu sync.Mutex
	ev []face.Event
}

func (e *events) sink(ev face.Event) { e.mu.Lock(); e.ev = append(e.ev, ev); e.mu.Unlock() }

func newAgent(t *testing.T, p llm.Provider, mode permission.Mode, allow ...string) (*Agent, *events, *int32) {
	t.Helper()
	gate, err := permission.NewEngine(mode, allow, nil)
	if err != nil {
		t.Fatal(err)
	}
	var running, peak int32
	ev := &events{}
	a := &Agent{Provider: p, Tools: testTools(&running, &peak), Gate: gate, Sink: ev.sink,
		Env: tool.Env{Cwd: t.TempDir()}, MaxLevel: func() tool.Level { return mode.MaxLevel() },
		Config: Config{Model: "m", MaxOutput: 1000}}
	return a, ev, &peak
}

func results(t *testing.T, p *scripted.Provider, req int) []llm.Block {
	t.Helper()
	reqs := p.Requests()
	if len(reqs) <= req {
		t.Fatalf("only %d requests", len(reqs))
	}
	msgs := reqs[req].Messages
	return msgs[len(msgs)-1].Content
}

func TestEveryCallGetsOneResultInOrder(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{
			{ID: "a", Name: "echo", Input: `{"text":"1","sleep_ms":60}`},
			{ID: "b", Name: "echo", Input: `{"text":"2"}`},
			{ID: "c", Name: "nope", Input: `{}`},
			{ID: "d", Name: "echo", Input: `{"text":5}`},
			{ID: "e", Name: "write", Input: `{"text":"w"}`},
		}},
		scripted.Step{Text: "all done"},
	)
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	end := a.Run(context.Background(), "go")
	if end.StopReason != "end_turn" || end.Text != "all done" || end.Steps != 2 {
		t.Fatalf("end = %+v", end)
	}
	rs := results(t, p, 1)
	want := []struct {
		id, text string
		isErr    bool
	}{
		{"a", "echo:1", false}, {"b", "echo:2", false},
		{"c", `There is no tool named "nope" here.`, true},
		{"d", `echo: argument "text" must be a string, not a number.`, true},
		{"e", "write:w", false},
	}
	if len(rs) != len(want) {
		t.Fatalf("%d results, want %d", len(rs), len(want))
	}
	for i, w := range want {
		if rs[i].ToolCallID != w.id || !strings.HasPrefix(rs[i].Text, w.text) || rs[i].IsError != w.isErr {
			t.Errorf("result %d = %+v, want %+v", i, rs[i], w)
		}
	}
	finished := 0
	for _, e := range ev.ev {
		if _, ok := e.(face.ToolFinished); ok {
			finished++
		}
	}
	if finished != 5 {
		t.Errorf("%d ToolFinished events, want 5", finished)
	}
}

func TestReadCallsRunInParallelWritesInOrder(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{
		{Name: "echo", Input: `{"text":"1","sleep_ms":100}`},
		{Name: "echo", Input: `{"text":"2","sleep_ms":100}`},
		{Name: "echo", Input: `{"text":"3","sleep_ms":100}`},
	}})
	a, _, peak := newAgent(t, p, permission.ModeYolo)
	a.Run(context.Background(), "go")
	if *peak != 3 {
		t.Fatalf("peak parallel reads = %d, want 3", *peak)
	}
	p2 := scripted.New(scripted.Step{Calls: []scripted.Call{
		{Name: "run", Input: `{"text":"1","sleep_ms":30}`},
		{Name: "run", Input: `{"text":"2","sleep_ms":30}`},
	}})
	b, _, peak2 := newAgent(t, p2, permission.ModeYolo)
	b.Run(context.Background(), "go")
	if *peak2 != 1 {
		t.Fatalf("exec calls overlapped: peak %d", *peak2)
	}
}

func TestNoHumanRefusalNamesTheFlag(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"ls"}`}}})
	a, ev, _ := newAgent(t, p, permission.ModeDefault)
	a.Config.RefusalHint = func(c permission.Call, _ permission.Verdict) string { return "Rerun with --allow '" + c.Tool + "'." }
	a.Run(context.Background(), "go")
	r := results(t, p, 1)[0]
	if !r.IsError || !strings.Contains(r.Text, "nobody is here") || !strings.Contains(r.Text, "--allow 'run'") {
		t.Fatalf("refusal = %q", r.Text)
	}
	var refused bool
	for _, e := range ev.ev {
		if f, ok := e.(face.ToolFinished); ok && f.Refused {
			refused = true
		}
	}
	if !refused {
		t.Fatal("ToolFinished.Refused not set")
	}
}

type answerer struct {
	face.NoHuman
	ans face.Answer
}

func (a answerer) AskPermission(context.Context, face.PermissionRequest) (face.Answer, error) {
	return a.ans, nil
}

func TestUserRejectionAndAlways(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"ls"}`}}})
	a, _, _ := newAgent(t, p, permission.ModeDefault)
	a.Asker = answerer{ans: face.DenyOnce}
	a.Run(context.Background(), "go")
	if r := results(t, p, 1)[0]; r.Text != "[run rejected by the user]" {
		t.Fatalf("rejection = %q", r.Text)
	}
	p2 := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"ls"}`}}},
		scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"ls"}`}}},
	)
	b, _, _ := newAgent(t, p2, permission.ModeDefault)
	b.Asker = answerer{ans: face.AllowAlways}
	b.Run(context.Background(), "go")
	b.Asker = nil // the second call must not ask again
	if r := results(t, p2, 2)[0]; r.Text != "run:ls" {
		t.Fatalf("remembered allow = %q", r.Text)
	}
}

func TestLoopDetector(t *testing.T) {
	same := scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: `{"text":"x"}`}}}
	p := scripted.New(same, same, same, scripted.Step{Text: "ok"})
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	a.Run(context.Background(), "go")
	for i, want := range []bool{false, false, true} {
		r := results(t, p, i+1)[0]
		if got := strings.Contains(r.Text, "[LOOP_DETECTED: "); got != want {
			t.Errorf("call %d: loop detected %v, want %v (%q)", i+1, got, want, r.Text)
		}
	}
	// Different spacing and key order is the same input.
	var d loopDetector
	d.observe("t", []byte(`{"a":1,"b":2}`), "o")
	d.observe("t", []byte(`{"b":2, "a":1}`), "o")
	if d.observe("t", []byte(`{ "a": 1, "b": 2 }`), "o") == "" {
		t.Error("canonical inputs not recognised as the same")
	}
	if d.observe("t", []byte(`{"a":1,"b":2}`), "other") != "" {
		t.Error("a different output must reset the count")
	}
}

func TestOutputBound(t *testing.T) {
	long := strings.Repeat("y", 5000)
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: `{"text":"` + long + `"}`}}})
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	a.Run(context.Background(), "go")
	r := results(t, p, 1)[0]
	if len([]rune(r.Text)) > 1200 || !strings.Contains(r.Text, "characters cut") || !strings.HasPrefix(r.Text, "echo:yyy") || !strings.HasSuffix(r.Text, "yyy") {
		t.Fatalf("bounded output = %d chars: %.80q…", len(r.Text), r.Text)
	}
}

func TestCancelGivesSyntheticResults(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := scripted.New(scripted.Step{Calls: []scripted.Call{
		{ID: "slow", Name: "run", Input: `{"text":"a","sleep_ms":10000}`},
		{ID: "next", Name: "run", Input: `{"text":"b"}`},
	}})
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	// Cancel as the slow call starts to run, not after a guess of a delay.
	a.Sink = func(e face.Event) {
		ev.sink(e)
		if r, ok := e.(face.ToolRunning); ok && r.CallID == "slow" {
			cancel()
		}
	}
	start := time.Now()
	end := a.Run(ctx, "go")
	if end.StopReason != "cancelled" {
		t.Fatalf("stop = %q", end.StopReason)
	}
	if time.Since(start) > 5*time.Second {
		t.Fatal("cancel did not stop the tool")
	}
	h := a.History()
	last := h[len(h)-1]
	if len(last.Content) != 2 || last.Content[0].ToolCallID != "slow" || last.Content[1].ToolCallID != "next" ||
		!strings.Contains(last.Content[1].Text, "cancelled") {
		t.Fatalf("results after cancel: %+v", last.Content)
	}
}

func TestCancelDuringStreamKeepsPartialText(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	p := scripted.New(scripted.Step{Text: "partial answer", BlockUntilCancel: true})
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	// Cancel once the partial text has streamed.
	a.Sink = func(e face.Event) {
		ev.sink(e)
		if d, ok := e.(face.TextDelta); ok && d.Text == "partial answer" {
			cancel()
		}
	}
	end := a.Run(ctx, "go")
	h := a.History()
	if end.StopReason != "cancelled" || len(h) != 2 || h[1].Text() != "partial answer" {
		t.Fatalf("end=%+v history=%+v", end, h)
	}
}

func TestPlanModeHidesWriteAndExecTools(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "write", Input: `{"text":"x"}`}}})
	a, _, _ := newAgent(t, p, permission.ModePlan)
	a.Run(context.Background(), "go")
	req := p.Requests()[0]
	if len(req.Tools) != 1 || req.Tools[0].Name != "echo" {
		t.Fatalf("plan mode declared %v", req.Tools)
	}
	if r := results(t, p, 1)[0]; !strings.Contains(r.Text, `no tool named "write"`) {
		t.Fatalf("hidden tool call = %q", r.Text)
	}
}

func TestMaxTurnsAndCounters(t *testing.T) {
	step := func(text string) scripted.Step {
		return scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: `{"text":"` + text + `"}`}}}
	}
	p := scripted.New(step("1"), step("2"), step("3"))
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Config.MaxTurns = 2
	end := a.Run(context.Background(), "go")
	if end.StopReason != "max_turns" || end.Err == nil || end.Steps != 2 {
		t.Fatalf("end = %+v", end)
	}
	steps := 0
	for _, e := range ev.ev {
		if _, ok := e.(face.StepEnded); ok {
			steps++
		}
	}
	if steps != 2 {
		t.Fatalf("%d StepEnded events", steps)
	}
	var c face.Counters
	for _, n := range []tool.Counter{tool.CountCommand, tool.CountCommand, tool.CountFileOp, tool.CountFileOp, tool.CountFileOp, tool.CountFileOp, tool.CountSkill, tool.CountNone} {
		c.Count(n)
	}
	if c != (face.Counters{Commands: 2, FileOps: 4, Skills: 1}) {
		t.Fatalf("counters = %+v", c)
	}
}

func TestUsageAndCost(t *testing.T) {
	p := scripted.New(scripted.Step{Text: "a", Usage: llm.Usage{InputTokens: 1000, OutputTokens: 100}})
	a, ev, _ := newAgent(t, p, permission.ModeYolo)
	a.Config.Price = func(string, llm.Usage) float64 { return 0.5 }
	a.Run(context.Background(), "go")
	a.Run(context.Background(), "again")
	u, cost := a.Usage()
	if u.InputTokens != 1100 || cost != 1.0 {
		t.Fatalf("usage %+v cost %v", u, cost)
	}
	var last face.TurnUsage
	for _, e := range ev.ev {
		if x, ok := e.(face.TurnUsage); ok {
			last = x
		}
	}
	if last.SessionCost != 1.0 || last.Cost != 0.5 {
		t.Fatalf("usage event %+v", last)
	}
}

// realTool is the tool of that name as gantry builds it.
func realTool(t *testing.T, name string) tool.Tool {
	t.Helper()
	all := append(append(shell.Tools(shell.Options{Tasks: shell.NewTasks(t.TempDir())}), fs.Tools(fs.Options{})...), search.Tools(search.Options{})...)
	all = append(all, skill.Tool(skill.Builtin(), skill.Options{}))
	for _, tl := range all {
		if tl.Name() == name {
			return tl
		}
	}
	t.Fatalf("no tool %s", name)
	return nil
}

// count counts one response of each named tool by the counter class it declares.
func count(t *testing.T, names ...string) face.Counters {
	var c face.Counters
	for _, n := range names {
		c.Count(realTool(t, n).Info().Counter)
	}
	return c
}

// Seed 002, bash row "ACP": a refusal returns [command rejected by the user].
func TestBash_RefusalText(t *testing.T) {
	bash := realTool(t, "bash")
	inv, _ := bash.Decode(tool.Env{Cwd: t.TempDir()}, []byte(`{"command":"ls"}`))
	if r := rejected(tool.Describe(bash, inv)); r.Text != "[command rejected by the user]" || !r.IsError {
		t.Fatalf("bash refusal = %+v", r)
	}
	w := realTool(t, "write_file")
	inv, _ = w.Decode(tool.Env{Cwd: t.TempDir()}, []byte(`{"path":"a","content":""}`))
	if r := rejected(tool.Describe(w, inv)); r.Text != "[write_file rejected by the user]" {
		t.Fatalf("write_file refusal = %+v", r)
	}
}

// Seed 002, counters table: one test per row, with the tools as gantry builds them.
func TestCounters_Commands(t *testing.T) {
	if c := count(t, "bash", "bash", "task_output", "task_kill"); c != (face.Counters{Commands: 2}) {
		t.Fatalf("%+v", c)
	}
}

func TestCounters_FileOps(t *testing.T) {
	if c := count(t, "read_file", "write_file", "edit_file", "apply_patch", "grep", "glob"); c != (face.Counters{FileOps: 4}) {
		t.Fatalf("%+v", c)
	}
}

func TestCounters_Skills(t *testing.T) {
	if c := count(t, "read_skill"); c != (face.Counters{Skills: 1}) {
		t.Fatalf("%+v", c)
	}
}

// BenchmarkTurn measures the loop's own work for one model response with one read
// call: request assembly, gate, dispatch, result, events (no store, no network).
func BenchmarkTurn(b *testing.B) {
	steps := make([]scripted.Step, 0, b.N+1)
	for i := 0; i < b.N; i++ {
		steps = append(steps, scripted.Step{Text: "step", Calls: []scripted.Call{{Name: "echo", Input: `{"text":"x"}`}}})
	}
	p := scripted.New(steps...)
	gate, _ := permission.NewEngine(permission.ModeDefault, nil, nil)
	var running, peak int32
	a := &Agent{Provider: p, Tools: testTools(&running, &peak), Gate: gate, Sink: func(face.Event) {},
		Env: tool.Env{Cwd: b.TempDir()}, Config: Config{Model: "m", MaxOutput: 30000, MaxTurns: b.N + 1}}
	b.ResetTimer()
	a.Run(context.Background(), "go")
}

type memRecorder struct {
	mu    sync.Mutex
	calls []string
}

func (m *memRecorder) add(s string) { m.mu.Lock(); m.calls = append(m.calls, s); m.mu.Unlock() }
func (m *memRecorder) AppendMessage(msg llm.Message) error {
	m.add("message:" + string(msg.Role))
	return nil
}
func (m *memRecorder) AppendResponse(msg llm.Message, u llm.Usage, cost float64) error {
	m.add(fmt.Sprintf("response:%d", u.InputTokens))
	return nil
}
func (m *memRecorder) AppendEvent(kind string, payload any) error { m.add("event:" + kind); return nil }
func (m *memRecorder) EndTurn() error                             { m.add("end"); return nil }
func (m *memRecorder) Flush() error                               { m.add("flush"); return nil }
func (m *memRecorder) MarkCompaction([]llm.Message) error         { m.add("compaction"); return nil }
func (m *memRecorder) AddUsage(llm.Usage, float64) error          { m.add("usage"); return nil }

// What a turn stores: the prompt, each response with its usage, each batch of results
// as one message, and a result event for every call but the last of a batch.
func TestWhatATurnStores(t *testing.T) {
	p := scripted.New(
		scripted.Step{Calls: []scripted.Call{{Name: "echo", Input: `{"text":"1"}`}, {Name: "echo", Input: `{"text":"2"}`}}, Usage: llm.Usage{InputTokens: 11}},
		scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"3"}`}}, Usage: llm.Usage{InputTokens: 12}},
		scripted.Step{Text: "done", Usage: llm.Usage{InputTokens: 13}},
	)
	a, _, _ := newAgent(t, p, permission.ModeYolo)
	rec := &memRecorder{}
	a.Store = rec
	a.Run(context.Background(), "go")
	// The two read calls run in parallel: their events come in any order.
	calls := rec.calls
	if i := slices.Index(calls, "response:11"); i >= 0 && i+6 < len(calls) {
		slices.Sort(calls[i+1 : i+4])
	}
	got := strings.Join(calls, " ")
	// A barrier (flush) before each request, after a response with a call that may
	// have an effect (before it runs), and after the start of such a call (run).
	want := "message:user flush response:11 event:tool_finished event:tool_running event:tool_running message:user " +
		"flush response:12 flush event:tool_running flush message:user flush response:13 event:turn_ended end"
	if got != want {
		t.Fatalf("stored:\n got %s\nwant %s", got, want)
	}
}

func TestAllowAlwaysSavedWritesTheRule(t *testing.T) {
	p := scripted.New(scripted.Step{Calls: []scripted.Call{{Name: "run", Input: `{"text":"make"}`}}}, scripted.Step{Text: "done"})
	a, ev, _ := newAgent(t, p, permission.ModeDefault)
	a.Asker = answerer{ans: face.AllowAlwaysSaved}
	var saved []string
	a.Config.SaveRule = func(c permission.Call, _ permission.Grant) (string, error) {
		saved = append(saved, c.Tool+":"+c.Principal)
		return "run:make", nil
	}
	a.Run(context.Background(), "go")
	if len(saved) != 1 || saved[0] != "run:make" {
		t.Fatalf("saved %v", saved)
	}
	if r := results(t, p, 1)[0]; r.IsError {
		t.Fatalf("the call did not run: %+v", r)
	}
	noticed := false
	for _, e := range ev.ev {
		if n, ok := e.(face.Notice); ok && strings.Contains(n.Text, "run:make") && n.Info {
			noticed = true
		}
	}
	if !noticed {
		t.Fatal("no notice of the saved rule")
	}
}
