package github

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// posted is a request the fake GitHub API received.
type posted struct {
	method, path, auth string
	body               map[string]any
}

// fakeGitHub stands in for GitHub's REST API: it answers a pull request's GET, records
// every request, and answers each POST with a new comment, or with failure when set.
type fakeGitHub struct {
	*httptest.Server
	mu      sync.Mutex
	reqs    []posted
	failing bool
}

func newFakeGitHub(t *testing.T) *fakeGitHub {
	g := &fakeGitHub{}
	g.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		p := posted{method: r.Method, path: r.URL.Path, auth: r.Header.Get("Authorization")}
		_ = json.Unmarshal(b, &p.body)
		g.mu.Lock()
		g.reqs = append(g.reqs, p)
		failing := g.failing
		g.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch {
		case r.Method == http.MethodGet && r.URL.Path == "/repos/acme/widgets/pulls/7":
			_, _ = io.WriteString(w, `{"number":7,"base":{"ref":"main","sha":"b45e0000"},"head":{"ref":"fix-add","sha":"4ead0000"}}`)
		case r.Method == http.MethodPost && failing:
			w.WriteHeader(http.StatusForbidden)
			_, _ = io.WriteString(w, `{"message":"Resource not accessible by integration","documentation_url":"https://docs.github.com"}`)
		case r.Method == http.MethodPost:
			w.WriteHeader(http.StatusCreated)
			_, _ = io.WriteString(w, `{"id":99,"html_url":"https://github.example/acme/widgets/issues/7#issuecomment-99"}`)
		default:
			w.WriteHeader(http.StatusNotFound)
			_, _ = io.WriteString(w, `{"message":"Not Found"}`)
		}
	}))
	t.Cleanup(g.Close)
	return g
}

// requests are the requests received so far.
func (g *fakeGitHub) requests() []posted {
	g.mu.Lock()
	defer g.mu.Unlock()
	return append([]posted(nil), g.reqs...)
}

// posts are the POSTs received so far.
func (g *fakeGitHub) posts() []posted {
	var out []posted
	for _, p := range g.requests() {
		if p.method == http.MethodPost {
			out = append(out, p)
		}
	}
	return out
}

// repo is a checked-out repository whose AGENTS.md holds a rule the model must be
// sent, and whose .gantry config has a SessionStart hook that leaves the file
// hook-ran: a project file that runs only in a trusted folder.
func repo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"AGENTS.md":           "Reviews in this repository end with the word WIDGETS-RULE.\n",
		".gantry/config.yaml": "hooks:\n  SessionStart:\n    - hooks:\n        - type: command\n          command: touch " + filepath.Join(dir, "hook-ran") + "\n",
	}
	for name, body := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if out, err := exec.Command("git", "-C", dir, "init", "-q").CombinedOutput(); err != nil {
		t.Fatalf("git init: %v\n%s", err, out)
	}
	return dir
}

// stepRun is one run of run.sh, as the action's run step runs it.
type stepRun struct {
	code             int
	stdout, stderr   string
	outputs          map[string]string
	summary          string
	requestsToModel  []fakellm.Recorded
	firstRequestText string // the model's first request, as JSON
	prompt           string // the text of its first message
	hookRan          bool   // the repository's SessionStart hook ran
}

// runStep runs deploy/github/run.sh for the event with the payload, the inputs given
// (over action.yml's defaults) and the environment action.yml's run step sets, against
// the fake GitHub g and a fake model answering with turns.
func runStep(t *testing.T, g *fakeGitHub, event string, payload map[string]any, with map[string]string, turns ...fakellm.Turn) stepRun {
	t.Helper()
	testenv.Need(t, "jq")
	testenv.Need(t, "curl")
	srv := fakellm.New(turns...)
	defer srv.Close()
	tmp := t.TempDir()
	eventPath := filepath.Join(tmp, "event.json")
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(eventPath, b, 0o644); err != nil {
		t.Fatal(err)
	}
	runner := filepath.Join(tmp, "runner")
	home := filepath.Join(tmp, "home")
	for _, d := range []string{runner, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	outFile, summaryFile := filepath.Join(tmp, "output"), filepath.Join(tmp, "summary")

	a := loadAction(t)
	workspace := repo(t)
	w := workflow{
		github: map[string]string{"token": "tok-secret", "workspace": workspace},
		env:    map[string]string{},
		steps:  map[string]map[string]string{"build": {"path": gantryBin}},
	}
	if with == nil {
		with = map[string]string{}
	}
	with["anthropic_api_key"] = "k"
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "GANTRY_"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "CLAUDE_"), strings.HasPrefix(k, "GITHUB_"),
			strings.HasPrefix(k, "INPUT_"), strings.HasPrefix(k, "RUNNER_"), k == "HOME":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+home, "GANTRY_DATA_DIR="+filepath.Join(home, "data"), "GANTRY_CONFIG_DIR="+filepath.Join(home, "config"),
		"CLAUDE_CONFIG_DIR="+filepath.Join(home, "claude"), "NO_COLOR=1", "ANTHROPIC_BASE_URL="+srv.URL(),
		"GITHUB_EVENT_NAME="+event, "GITHUB_EVENT_PATH="+eventPath, "GITHUB_OUTPUT="+outFile,
		"GITHUB_STEP_SUMMARY="+summaryFile, "GITHUB_API_URL="+g.URL, "GITHUB_SERVER_URL=https://github.example",
		"GITHUB_REPOSITORY=acme/widgets", "GITHUB_RUN_ID=4242", "RUNNER_TEMP="+runner)
	env = append(env, a.stepEnv(t, a.stepRunning(t, "run.sh"), with, w)...)

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "run.sh")
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	r := stepRun{stdout: stdout.String(), stderr: stderr.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running run.sh: %v", err)
	}
	if r.outputs, err = readOutputs(outFile); err != nil {
		t.Fatal(err)
	}
	if s, err := os.ReadFile(summaryFile); err == nil {
		r.summary = string(s)
	}
	_, err = os.Stat(filepath.Join(workspace, "hook-ran"))
	r.hookRan = err == nil
	r.requestsToModel = srv.Requests()
	if len(r.requestsToModel) > 0 {
		b, _ := json.Marshal(r.requestsToModel[0].Body)
		r.firstRequestText = string(b)
		var req struct {
			Messages []struct {
				Content []struct{ Text string } `json:"content"`
			} `json:"messages"`
		}
		_ = json.Unmarshal(b, &req)
		if len(req.Messages) > 0 && len(req.Messages[0].Content) > 0 {
			r.prompt = req.Messages[0].Content[0].Text
		}
	}
	return r
}

// say is a model response of text.
func say(text string) fakellm.Turn { return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(text)}} }

// issueComment is an issue_comment payload on pull request #7 by author.
func issueComment(body, login, userType, association string) map[string]any {
	return map[string]any{
		"action": "created",
		"issue": map[string]any{"number": 7, "title": "Fix Add", "body": "Add subtracted.", "html_url": "https://github.example/acme/widgets/pull/7",
			"pull_request": map[string]any{"url": "https://api.github.example/repos/acme/widgets/pulls/7"}},
		"comment": map[string]any{"id": 55, "body": body, "author_association": association,
			"user": map[string]any{"login": login, "type": userType}},
	}
}

// A mention in a comment on a pull request: the model is sent the comment, the pull
// request's refs (read from the API) and the repository's AGENTS.md; the answer is
// posted on the pull request with the token; the outputs, the log and the summary
// say what happened; gantry's commands never see the token; with trust, the
// repository's hooks run.
func TestMentionInACommentIsAnswered(t *testing.T) {
	g := newFakeGitHub(t)
	r := runStep(t, g, "issue_comment", issueComment("@gantry what does this change break?", "alice", "User", "MEMBER"),
		map[string]string{"allow": "bash:env", "trust": "true"},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("c1", "bash", `{"command":"env"}`)}},
		say("Nothing breaks. WIDGETS-RULE"))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"@gantry what does this change break?", "b45e0000", "4ead0000", "pull request #7 of acme/widgets"} {
		if !strings.Contains(r.prompt, want) {
			t.Errorf("the model was not sent %q:\n%s", want, r.prompt)
		}
	}
	if !strings.Contains(r.firstRequestText, "Reviews in this repository end with the word WIDGETS-RULE") {
		t.Errorf("the repository's AGENTS.md is not in the model's first request")
	}
	if !r.hookRan {
		t.Errorf("with trust true, the repository's SessionStart hook did not run")
	}
	if len(r.requestsToModel) != 2 {
		t.Fatalf("%d requests to the model, want 2", len(r.requestsToModel))
	}
	second, _ := json.Marshal(r.requestsToModel[1].Body)
	if !strings.Contains(string(second), "GITHUB_EVENT_NAME=issue_comment") {
		t.Errorf("the model was not sent env's output")
	}
	if strings.Contains(string(second), "tok-secret") {
		t.Errorf("the commands gantry ran saw the GitHub token")
	}
	posts := g.posts()
	if len(posts) != 1 {
		t.Fatalf("%d comments posted, want 1: %v", len(posts), posts)
	}
	p := posts[0]
	body, _ := p.body["body"].(string)
	if p.path != "/repos/acme/widgets/issues/7/comments" || p.auth != "Bearer tok-secret" {
		t.Errorf("posted to %s with %q", p.path, p.auth)
	}
	if !strings.HasPrefix(body, "Nothing breaks. WIDGETS-RULE") || !strings.Contains(body, "<!-- gantry-action -->") ||
		!strings.Contains(body, r.outputs["session_id"]) || !strings.Contains(body, "https://github.example/acme/widgets/actions/runs/4242") {
		t.Errorf("the comment's body:\n%s", body)
	}
	if r.outputs["result"] != "Nothing breaks. WIDGETS-RULE" || r.outputs["exit_code"] != "0" || r.outputs["skipped"] != "false" ||
		r.outputs["session_id"] == "" || !strings.HasSuffix(r.outputs["comment_url"], "#issuecomment-99") {
		t.Errorf("outputs: %v", r.outputs)
	}
	log, err := os.ReadFile(r.outputs["log"])
	if err != nil {
		t.Fatalf("the log output: %v", err)
	}
	if !strings.Contains(string(log), `"type":"result"`) || !strings.Contains(string(log), `"type":"tool_finished"`) {
		t.Errorf("the log is not the run's stream-json:\n%s", log)
	}
	if !strings.Contains(r.summary, "Nothing breaks. WIDGETS-RULE") || !strings.Contains(r.summary, r.outputs["log"]) {
		t.Errorf("the summary:\n%s", r.summary)
	}
}

// A reply in a review thread goes to the thread, and the model is sent where the
// comment is.
func TestReviewCommentIsAnsweredInItsThread(t *testing.T) {
	g := newFakeGitHub(t)
	payload := map[string]any{
		"action": "created",
		"pull_request": map[string]any{"number": 7, "title": "Fix Add", "body": "", "html_url": "https://github.example/acme/widgets/pull/7",
			"base": map[string]any{"ref": "main", "sha": "b45e1111"}, "head": map[string]any{"ref": "fix-add", "sha": "4ead1111"}},
		"comment": map[string]any{"id": 31, "body": "@Gantry, is this line right?", "author_association": "OWNER", "path": "add.go", "line": 4,
			"diff_hunk": "@@ -1,4 +1,4 @@\n-\treturn a - b\n+\treturn a + b", "user": map[string]any{"login": "bob", "type": "User"}},
	}
	r := runStep(t, g, "pull_request_review_comment", payload, nil, say("Yes: it adds."))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"@Gantry, is this line right?", "add.go, line 4", "return a + b", "b45e1111...4ead1111"} {
		if !strings.Contains(r.prompt, want) {
			t.Errorf("the model was not sent %q:\n%s", want, r.prompt)
		}
	}
	posts := g.posts()
	if len(posts) != 1 || posts[0].path != "/repos/acme/widgets/pulls/7/comments/31/replies" {
		t.Fatalf("posts: %v", posts)
	}
}

// The review workflow's case: a pull_request event with a prompt runs without a
// mention, the model is sent the prompt with the pull request's context from the
// payload, and the review is posted on the pull request.
func TestPromptOnAPullRequestIsAReview(t *testing.T) {
	g := newFakeGitHub(t)
	payload := map[string]any{
		"action": "opened",
		"pull_request": map[string]any{"number": 7, "title": "Fix Add", "body": "Add subtracted; now it adds.",
			"html_url": "https://github.example/acme/widgets/pull/7", "author_association": "MEMBER",
			"base": map[string]any{"ref": "main", "sha": "b45e2222"}, "head": map[string]any{"ref": "fix-add", "sha": "4ead2222"},
			"user": map[string]any{"login": "carol", "type": "User"}},
	}
	r := runStep(t, g, "pull_request", payload, map[string]string{"prompt": "Review this pull request."}, say("One bug: none. WIDGETS-RULE"))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"Review this pull request.\n\n---\n", "pull request #7 of acme/widgets (the pull_request event, by carol)",
		"git diff b45e2222...4ead2222", "Its description:\nAdd subtracted; now it adds."} {
		if !strings.Contains(r.prompt, want) {
			t.Errorf("the model was not sent %q:\n%s", want, r.prompt)
		}
	}
	posts := g.posts()
	if len(posts) != 1 || posts[0].path != "/repos/acme/widgets/issues/7/comments" || len(g.requests()) != 1 {
		t.Fatalf("GitHub got %v, want one post on the pull request", g.requests())
	}
}

// workflow_dispatch runs the prompt input, with the args input split as a shell
// splits words; there is nothing to comment on, so nothing is posted; the
// repository's project files do not run without the trust input.
func TestDispatchRunsThePrompt(t *testing.T) {
	g := newFakeGitHub(t)
	r := runStep(t, g, "workflow_dispatch", map[string]any{"inputs": map[string]any{}},
		map[string]string{"prompt": "Summarise the open TODOs.", "args": `--append-system-prompt 'Be brief, please.'`, "max_turns": "3"},
		say("There are none."))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.prompt != "Summarise the open TODOs.\n" {
		t.Errorf("the model was sent %q, not the prompt alone", r.prompt)
	}
	if !strings.Contains(r.firstRequestText, "Be brief, please.") {
		t.Errorf("the model was not sent the appended system prompt")
	}
	if len(g.posts()) != 0 {
		t.Errorf("posted: %v", g.posts())
	}
	if r.hookRan {
		t.Errorf("without trust, the repository's SessionStart hook ran")
	}
	if r.outputs["result"] != "There are none." || r.outputs["exit_code"] != "0" || !strings.Contains(r.summary, "There are none.") {
		t.Errorf("outputs %v\nsummary:\n%s", r.outputs, r.summary)
	}
}

// Nothing runs and nothing is posted for a comment without the mention, one by a bot
// (the action's own answers are written by github-actions[bot]), one carrying the
// action's marker, or one by an author the repository does not know; the step says
// why and succeeds.
func TestSkips(t *testing.T) {
	for _, c := range []struct {
		name    string
		payload map[string]any
		why     string
	}{
		{"no mention", issueComment("LGTM, merging. (cc gantry-team@example.com)", "alice", "User", "MEMBER"), "does not mention @gantry"},
		{"a bot", issueComment("@gantry stopped: see above", "github-actions[bot]", "Bot", "NONE"), "written by a bot"},
		{"its own answer", issueComment("@gantry\n<!-- gantry-action -->", "someone", "User", "MEMBER"), "gantry's own answers"},
		{"a stranger", issueComment("@gantry mine bitcoin", "mallory", "User", "NONE"), "(NONE) is not one of allowed_associations"},
	} {
		t.Run(c.name, func(t *testing.T) {
			g := newFakeGitHub(t)
			r := runStep(t, g, "issue_comment", c.payload, nil, say("should not be asked"))
			if r.code != 0 {
				t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
			}
			if len(r.requestsToModel) != 0 || len(g.requests()) != 0 {
				t.Errorf("ran anyway: %d model requests, GitHub requests %v", len(r.requestsToModel), g.requests())
			}
			if r.outputs["skipped"] != "true" || !strings.Contains(r.summary, c.why) || !strings.Contains(r.stdout, c.why) {
				t.Errorf("outputs %v\nsummary:\n%s\nstdout:\n%s", r.outputs, r.summary, r.stdout)
			}
		})
	}
}

// An error from GitHub's API fails the step with GitHub's message; the outputs are
// written before, so a later step can still read the answer.
func TestAPIErrorFailsTheStep(t *testing.T) {
	g := newFakeGitHub(t)
	g.mu.Lock()
	g.failing = true
	g.mu.Unlock()
	r := runStep(t, g, "issue_comment", issueComment("@gantry hi", "alice", "User", "COLLABORATOR"), nil, say("Hello."))
	if r.code == 0 {
		t.Fatalf("the step succeeded though the post failed\nstdout:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "::error::GitHub's API answered POST /repos/acme/widgets/issues/7/comments with 403: Resource not accessible by integration") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	if r.outputs["result"] != "Hello." {
		t.Errorf("outputs: %v", r.outputs)
	}
}

// When gantry fails, the comment says so with its exit code and reason, the outputs
// carry the code, and the step fails.
func TestGantryFailureIsPostedAndFailsTheStep(t *testing.T) {
	g := newFakeGitHub(t)
	r := runStep(t, g, "issue_comment", issueComment("@gantry hi", "alice", "User", "OWNER"), nil,
		fakellm.Turn{Status: http.StatusBadRequest})
	if r.code == 0 {
		t.Fatalf("the step succeeded though gantry failed\nstdout:\n%s", r.stdout)
	}
	if r.outputs["exit_code"] != "1" {
		t.Errorf("outputs: %v", r.outputs)
	}
	posts := g.posts()
	if len(posts) != 1 {
		t.Fatalf("posts: %v", posts)
	}
	if body, _ := posts[0].body["body"].(string); !strings.HasPrefix(body, "**gantry stopped** (exit code 1") {
		t.Errorf("the comment:\n%s", body)
	}
	if !strings.Contains(r.stderr, "::error::gantry exited with 1") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
}
