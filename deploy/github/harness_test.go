package github

// The harness of the action's tests: a fake GitHub, a checked-out repository, and
// one run of run.sh as the action's run step runs it.

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
