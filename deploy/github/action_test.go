package github

import (
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

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
		{"no mention", issueComment("LGTM; cc @gantry-team and ops@gantry.dev", "alice", "User", "MEMBER"), "does not mention @gantry"},
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

// The trigger phrase is matched as it is written, not as a regular expression, and
// only as a word of its own.
func TestTriggerPhraseIsLiteral(t *testing.T) {
	for _, c := range []struct {
		comment string
		runs    bool
	}{
		{"/ask+ why does Add subtract?", true},
		{"see /askk why", false},
		{"/ask+bot why", false},
	} {
		g := newFakeGitHub(t)
		r := runStep(t, g, "issue_comment", issueComment(c.comment, "alice", "User", "MEMBER"), map[string]string{"trigger_phrase": "/ask+"}, say("Because."))
		if r.code != 0 {
			t.Fatalf("%q: exit %d\nstdout:\n%s\nstderr:\n%s", c.comment, r.code, r.stdout, r.stderr)
		}
		if ran := r.outputs["skipped"] == "false" && len(g.posts()) == 1; ran != c.runs {
			t.Errorf("%q: ran %v, want %v (outputs %v)", c.comment, ran, c.runs, r.outputs)
		}
	}
}

// A mention in a new issue's text: the title and body are the request, sent once,
// and the answer goes to the issue.
func TestMentionInANewIssue(t *testing.T) {
	g := newFakeGitHub(t)
	payload := map[string]any{
		"action": "opened",
		"issue": map[string]any{"number": 12, "title": "Add is wrong", "body": "@gantry can you find why Add(2, 3) is -1?",
			"html_url": "https://github.example/acme/widgets/issues/12", "author_association": "COLLABORATOR",
			"user": map[string]any{"login": "dave", "type": "User"}},
	}
	r := runStep(t, g, "issues", payload, nil, say("It subtracts."))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if !strings.HasPrefix(r.prompt, "Add is wrong\n@gantry can you find why Add(2, 3) is -1?\n\n---\n") ||
		strings.Count(r.prompt, "Add(2, 3)") != 1 || !strings.Contains(r.prompt, "issue #12 of acme/widgets: dave mentioned you") {
		t.Errorf("the prompt:\n%s", r.prompt)
	}
	if posts := g.posts(); len(posts) != 1 || posts[0].path != "/repos/acme/widgets/issues/12/comments" {
		t.Errorf("posts: %v", posts)
	}
}

// Flags in args reach gantry as they are: with --output-schema (issue 34's bounds), the
// answer validated against the schema is the structured_output output, as JSON.
func TestStructuredOutputPassesThrough(t *testing.T) {
	help, _ := exec.Command(gantryBin, "--help").CombinedOutput()
	if !strings.Contains(string(help), "--output-schema") {
		t.Skip("this gantry has no --output-schema")
	}
	schema := filepath.Join(t.TempDir(), "verdict.json")
	if err := os.WriteFile(schema, []byte(`{"type":"object","properties":{"verdict":{"enum":["ok","bad"]}},"required":["verdict"]}`), 0o644); err != nil {
		t.Fatal(err)
	}
	g := newFakeGitHub(t)
	r := runStep(t, g, "workflow_dispatch", map[string]any{}, map[string]string{"prompt": "Judge the code.", "args": "--output-schema " + schema},
		say(`{"verdict": "ok"}`))
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	if r.outputs["structured_output"] != `{"verdict":"ok"}` {
		t.Errorf("outputs: %v", r.outputs)
	}
}
