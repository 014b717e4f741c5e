package mcpclient

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/procgroup"
	"github.com/gantry-dev/gantry/internal/procgroup/proctest"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

func TestToolsAreListedAcrossPages(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo", "-page", "2"))
	if f := set.Failures(); len(f) != 0 {
		t.Fatalf("failures: %q", f)
	}
	var names []string
	for _, tl := range set.Tools() {
		names = append(names, tl.Name())
		if tl.Level() != tool.LevelExec || tl.Kind() != tool.KindOther {
			t.Errorf("%s: level %v kind %v", tl.Name(), tl.Level(), tl.Kind())
		}
		if tl.Spec().Name != tl.Name() || tl.Spec().Description == "" {
			t.Errorf("%s: spec %+v", tl.Name(), tl.Spec())
		}
	}
	want := []string{"mcp__echo__echo", "mcp__echo__add", "mcp__echo__fail", "mcp__echo__slow", "mcp__echo__image",
		"mcp__echo__resource", "mcp__echo__pid", "mcp__echo__spawn", "mcp__echo__crash", "mcp__echo__weird_name_", "mcp__echo__roots", "mcp__echo__env", "mcp__echo__whereami"}
	if len(names) != len(want) {
		t.Fatalf("tools %q, want %q", names, want)
	}
	for _, w := range want {
		find(t, set, w)
	}

	spec := find(t, set, "mcp__echo__echo").Spec()
	if spec.Description != "Echoes its text." {
		t.Errorf("description %q", spec.Description)
	}
	var schema struct {
		Type       string `json:"type"`
		Properties map[string]struct {
			Type        string `json:"type"`
			Description string `json:"description"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(spec.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["text"].Type != "string" ||
		schema.Properties["text"].Description != "the text to echo" || len(schema.Required) != 1 || schema.Required[0] != "text" {
		t.Errorf("schema %s", spec.Schema)
	}
}

func TestCallRoundTrip(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	ctx := context.Background()
	if r := call(ctx, t, set, "mcp__echo__echo", `{"text":"hello, world"}`); r.IsError || r.Text != "hello, world" {
		t.Errorf("echo: %+v", r)
	}
	if r := call(ctx, t, set, "mcp__echo__add", `{"a":2,"b":3.5}`); r.IsError || r.Text != "5.5" {
		t.Errorf("add: %+v", r)
	}
	if r := call(ctx, t, set, "mcp__echo__weird_name_", ``); r.IsError || r.Text != "weird" {
		t.Errorf("the sanitised name does not reach its tool: %+v", r)
	}
	// The server checks the arguments against its schema; its refusal reaches the model.
	if r := call(ctx, t, set, "mcp__echo__add", `{"a":"two"}`); !r.IsError || !strings.Contains(r.Text, `want "number"`) {
		t.Errorf("wrongly typed argument: %+v", r)
	}
}

func TestIsErrorIsKept(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	r := call(context.Background(), t, set, "mcp__echo__fail", `{}`)
	if !r.IsError || r.Text != "it failed, as asked" {
		t.Errorf("%+v", r)
	}
}

func TestImagesAndResources(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	r := call(context.Background(), t, set, "mcp__echo__image", `{}`)
	if r.IsError || r.Text != "a red dot" || len(r.Images) != 1 || r.Images[0].MediaType != "image/png" ||
		!strings.HasPrefix(string(r.Images[0].Data), "\x89PNG") || r.Display.Note == "" {
		t.Errorf("image: %+v", r)
	}
	r = call(context.Background(), t, set, "mcp__echo__resource", `{}`)
	if r.IsError || r.Text != "the notes" {
		t.Errorf("resource: %+v", r)
	}
}

func TestCallTimeout(t *testing.T) {
	set := connect(t, Options{CallTimeout: time.Second}, echoServer("echo"))
	start := time.Now()
	r := call(context.Background(), t, set, "mcp__echo__slow", `{"ms":20000}`)
	if !r.IsError || r.Text != "mcp__echo__slow failed: no answer within 1s, so the call was cancelled." {
		t.Errorf("%+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	// The server lives on.
	if r := call(context.Background(), t, set, "mcp__echo__echo", `{"text":"still here"}`); r.Text != "still here" {
		t.Errorf("after a timeout: %+v", r)
	}
}

func TestCancelMidCall(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	slow := make(chan tool.Result, 1)
	go func() { slow <- call(ctx, t, set, "mcp__echo__slow", `{"ms":20000}`) }()
	waitLastWords(t, set, "echo", "slow began") // the call is in flight
	start := time.Now()
	cancel()
	if r := testenv.Recv(t, slow, testenv.Bound, "the cancelled call to end"); !r.IsError || r.Text != "mcp__echo__slow failed: cancelled before the server answered." {
		t.Errorf("%+v", r)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancel took %v", d)
	}
	// The server hears of the cancel.
	waitLastWords(t, set, "echo", "slow was cancelled")
}

func TestFailingServersAreReportedAndTheOthersWork(t *testing.T) {
	set := connect(t, Options{},
		Server{Name: "missing", Command: "/nonexistent/no-such-mcp-server"},
		echoServer("good"),
		echoServer("quitter", "-exit"),
		Server{Name: "good"}, // a second "good"
		Server{Name: "neither"},
		Server{Name: "both", Command: echoBin, URL: "http://127.0.0.1:1"},
		Server{Command: echoBin},
	)
	f := set.Failures()
	if len(f) != 6 {
		t.Fatalf("failures: %q", f)
	}
	expect := []struct{ server, says string }{
		{`"missing" failed to start: `, "no such file or directory"},
		{`"quitter" failed to start: `, `; its last words on stderr: "echoserver: told to exit at once"`},
		{`"good"`, "given twice"},
		{`"neither"`, "neither a command nor a url"},
		{`"both"`, "both a command and a url"},
		{"An MCP server", "has no name"},
	}
	for i, e := range expect {
		if !strings.Contains(f[i], e.server) || !strings.Contains(f[i], e.says) || !strings.HasSuffix(f[i], ".") || strings.Contains(f[i], "\n") {
			t.Errorf("failure %d: %q, want it to name %s and say %q", i, f[i], e.server, e.says)
		}
	}
	if r := call(context.Background(), t, set, "mcp__good__echo", `{"text":"fine"}`); r.Text != "fine" {
		t.Errorf("the good server: %+v", r)
	}
	if len(set.Tools()) != 13 {
		t.Errorf("%d tools", len(set.Tools()))
	}
}

func TestAServerThatHangsAtStartUp(t *testing.T) {
	start := time.Now()
	set := connect(t, Options{StartTimeout: 500 * time.Millisecond}, echoServer("hang", "-hang"))
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Connect took %v", d)
	}
	if f := set.Failures(); len(f) != 1 || f[0] != `MCP server "hang" did not start within 500ms.` {
		t.Errorf("failures: %q", f)
	}
	if len(set.Tools()) != 0 {
		t.Errorf("tools: %d", len(set.Tools()))
	}
}

func TestBadInputIsRefusedWithASentence(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	echo := find(t, set, "mcp__echo__echo")
	for input, want := range map[string]string{
		`[1,2]`:    "mcp__echo__echo takes its arguments as a JSON object, not an array.",
		`"text"`:   "mcp__echo__echo takes its arguments as a JSON object, not a string.",
		`42`:       "mcp__echo__echo takes its arguments as a JSON object, not a number.",
		`{"text":`: "mcp__echo__echo could not read its arguments: they are not valid JSON; give a JSON object.",
	} {
		if _, msg := echo.Decode(tool.Env{}, json.RawMessage(input)); msg != want {
			t.Errorf("%s: %q, want %q", input, msg, want)
		}
	}
	// No arguments at all are an empty object.
	for _, input := range []string{``, `null`, ` {} `} {
		if _, msg := find(t, set, "mcp__echo__pid").Decode(tool.Env{}, json.RawMessage(input)); msg != "" {
			t.Errorf("%q: %s", input, msg)
		}
	}
}

func TestCloseStopsTheServersAndTheirChildren(t *testing.T) {
	set := Connect(context.Background(), []Server{echoServer("a"), echoServer("b")}, Options{})
	t.Cleanup(func() { set.Close(context.Background()) }) // should the test fail before its own Close
	ctx := context.Background()
	// The servers run in PID namespaces of their own: their groups are those of
	// their inits, as gantry sees them; the child is known by its marker.
	var pids []int
	for _, c := range set.conns {
		if pg := int(c.proc.pgid.Load()); pg <= 0 || !procgroup.Alive(pg) {
			t.Fatalf("server %s: no living group %d", c.name, pg)
		} else {
			pids = append(pids, pg)
		}
	}
	marker := fmt.Sprintf("61.%d", os.Getpid())
	if r := call(ctx, t, set, "mcp__a__spawn", `{"seconds":"`+marker+`"}`); r.IsError || !proctest.Running(marker) {
		t.Fatalf("spawn: %+v", r)
	}
	// A call in flight when Close begins ends at once.
	slow := make(chan tool.Result, 1)
	go func() { slow <- call(ctx, t, set, "mcp__b__slow", `{"ms":20000}`) }()
	waitLastWords(t, set, "b", "slow began")

	start := time.Now()
	set.Close(context.Background())
	set.Close(context.Background())
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Close took %v", d)
	}
	if r := testenv.Recv(t, slow, testenv.Bound, "the call in flight at Close to end"); !r.IsError || r.Text != "mcp__b__slow failed: the MCP connections were closed before the server answered." {
		t.Errorf("the call in flight: %+v", r)
	}
	for _, pg := range pids[:2] { // the servers lead their groups
		if procgroup.Alive(pg) {
			t.Errorf("process group %d is alive after Close", pg)
		}
	}
	if proctest.Running(marker) {
		t.Errorf("the server's child (sleep %s) is alive after Close", marker)
	}
	if r := call(ctx, t, set, "mcp__a__echo", `{"text":"x"}`); r.Text != "mcp__a__echo failed: the MCP connections are closed." {
		t.Errorf("a call after Close: %+v", r)
	}
}

func TestAServerThatDiesMidCall(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	ctx := context.Background()
	r := call(ctx, t, set, "mcp__echo__crash", `{}`)
	if !r.IsError || !strings.HasPrefix(r.Text, "mcp__echo__crash failed: ") ||
		!strings.HasSuffix(r.Text, `; the server's last words on stderr: "echoserver: crashing as asked".`) {
		t.Errorf("crash: %+v", r)
	}
	if r := call(ctx, t, set, "mcp__echo__echo", `{"text":"x"}`); !r.IsError || !strings.HasPrefix(r.Text, "mcp__echo__echo failed: ") {
		t.Errorf("a call after the crash: %+v", r)
	}
}
