package app

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/testenv"
)

func gitIn(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// A session's changes — by edit_file and by the shell (sed -i, echo >, rm, mv, a new
// folder) — are undone by a rewind to prompt 1, byte for byte and modes too; the
// project's .git is untouched; a file the person changed since is named and kept
// unless forced; a file over the bound is named as not kept.
func TestRewindFiles(t *testing.T) {
	dir := project(t, "checkpoints:\n  maxFileMB: 10\n", map[string]string{
		"main.go": "package main\n\nfunc main() {}\n", "notes.txt": "one\ntwo\n", "old.txt": "old\n", "keep.txt": "keep\n",
	})
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), make([]byte, 50<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, dir, "rm -rf .git && git init -q && git add main.go notes.txt && git -c user.name=t -c user.email=t@t commit -qm init")
	gitState := func() string {
		return gitIn(t, dir, "find .git -type f | sort | xargs md5sum && git --no-optional-locks status --porcelain && git for-each-ref")
	}
	gitBefore := gitState()
	snapshot := func() map[string]string {
		out := map[string]string{}
		_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
			rel, _ := filepath.Rel(dir, p)
			if err != nil || rel == "." || strings.HasPrefix(rel, ".git") && (rel == ".git" || strings.HasPrefix(rel, ".git/")) || rel == "big.bin" {
				if rel == ".git" {
					return filepath.SkipDir
				}
				return nil
			}
			if fi.IsDir() {
				out[rel] = "dir"
				return nil
			}
			b, _ := os.ReadFile(p)
			out[rel] = fi.Mode().String() + ":" + string(b)
			return nil
		})
		return out
	}
	want := snapshot()
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "e1", Name: "edit_file", Input: `{"path":"main.go","edits":[{"old":"func main() {}","new":"func main() { println(1) }"}]}`}}},
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"sed -i 's/two/2/' notes.txt && echo new > made.txt && rm old.txt && mv keep.txt kept.txt && mkdir -p sub/deep && echo x > sub/deep/f && chmod +x notes.txt"}`}}},
		scripted.Step{Text: "changed"},
		scripted.Step{Calls: []scripted.Call{{ID: "b2", Name: "bash", Input: `{"command":"echo second >> made.txt"}`}}},
		scripted.Step{Text: "changed again"},
	)
	var notices []string
	a, err := newStarted(Options{Cwd: dir, LLM: m, PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			notices = append(notices, n.Text)
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	ctx := context.Background()
	a.Run(ctx, "change things", nil)
	a.Run(ctx, "change more", nil)
	cps, err := a.Checkpoints(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(cps) != 2 || cps[0].Prompt != "change things" || cps[1].Prompt != "change more" {
		t.Fatalf("checkpoints: %+v", cps)
	}
	var paths []string
	for _, c := range cps[0].Changes {
		paths = append(paths, c.Status+" "+c.Path)
	}
	for _, p := range []string{"M main.go", "M notes.txt", "A made.txt", "D old.txt", "D keep.txt", "A kept.txt", "A sub/deep/f"} {
		if !slices.Contains(paths, p) {
			t.Errorf("prompt 1's changes lack %q: %v", p, paths)
		}
	}
	if !slices.Contains(cps[0].Skipped, "big.bin") || !slices.ContainsFunc(notices, func(n string) bool { return strings.Contains(n, "big.bin") }) {
		t.Errorf("the 50 MB file is not named as left out: %v, notices %q", cps[0].Skipped, notices)
	}
	// The person changes a file meanwhile: named, nothing written.
	if err := os.WriteFile(filepath.Join(dir, "kept.txt"), []byte("the person's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := a.RewindFiles(ctx, 1, false)
	if !errors.Is(err, ErrChangedOutside) || !slices.Equal(res.Outside, []string{"kept.txt"}) {
		t.Fatalf("a rewind over a person's change: %v, %+v", err, res)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "made.txt")); string(b) != "new\nsecond\n" {
		t.Fatalf("a refused rewind wrote: %q", b)
	}
	if _, err := a.RewindFiles(ctx, 1, true); err != nil {
		t.Fatal(err)
	}
	got := snapshot()
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s after the rewind: %q, want %q", k, got[k], v)
		}
	}
	for k := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("%s is left after the rewind", k)
		}
	}
	if gitState() != gitBefore {
		t.Error("the project's .git changed")
	}
	// The rewind is undone by the checkpoint it made.
	cps, _ = a.Checkpoints(ctx)
	if len(cps) != 3 {
		t.Fatalf("after the rewind: %d checkpoints", len(cps))
	}
	if _, err := a.RewindFiles(ctx, 3, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "kept.txt")); string(b) != "the person's\n" {
		t.Errorf("the undo of the rewind: kept.txt %q", b)
	}
	if _, err := a.RewindFiles(ctx, 9, false); err == nil || !strings.Contains(err.Error(), "1 to") {
		t.Errorf("an unknown checkpoint: %v", err)
	}
}

// The conversation rewound to before prompt 2: the model's next request has prompt 1's
// exchange only; the later messages are a branch that --resume picks.
func TestRewindConversation(t *testing.T) {
	dir := project(t, "", map[string]string{"a.txt": "a\n"})
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo 1 >> a.txt"}`}}},
		scripted.Step{Text: "first done"},
		scripted.Step{Calls: []scripted.Call{{ID: "b2", Name: "bash", Input: `{"command":"echo 2 >> a.txt"}`}}},
		scripted.Step{Text: "second done"},
		scripted.Step{Text: "third answer"},
	)
	a := open(t, Options{Cwd: dir, LLM: m, PermissionMode: "yolo"})
	ctx := context.Background()
	a.Run(ctx, "first prompt", nil)
	a.Run(ctx, "second prompt", nil)
	branch, err := a.RewindConversation(ctx, 2)
	if err != nil {
		t.Fatal(err)
	}
	a.Run(ctx, "third prompt", nil)
	reqs := m.Requests()
	last := reqs[len(reqs)-1]
	var texts []string
	for _, msg := range last.Messages {
		for _, b := range msg.Content {
			if b.Text != "" {
				texts = append(texts, b.Text)
			}
		}
	}
	all := strings.Join(texts, "|")
	if !strings.Contains(all, "first prompt") || strings.Contains(all, "second prompt") || strings.Contains(all, "second done") || !strings.Contains(all, "third prompt") {
		t.Errorf("the request after the rewind: %s", all)
	}
	// The branch holds the conversation as it was.
	b := open(t, Options{Cwd: dir, LLM: scripted.New(), Resume: branch})
	var btexts []string
	for _, msg := range b.agent.History() {
		for _, blk := range msg.Content {
			if blk.Text != "" {
				btexts = append(btexts, blk.Text)
			}
		}
	}
	if got := strings.Join(btexts, "|"); !strings.Contains(got, "second prompt") || !strings.Contains(got, "second done") || strings.Contains(got, "third") {
		t.Errorf("the branch: %s", got)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n1\n2\n" {
		t.Errorf("a conversation-only rewind changed the files: %q", b)
	}
	// The transcript hooks read is the conversation as the model has it; the branch's
	// has what came later.
	tr, err := os.ReadFile(a.transcript.path)
	if err != nil {
		t.Fatal(err)
	}
	if s := string(tr); !strings.Contains(s, "first prompt") || strings.Contains(s, "second prompt") || !strings.Contains(s, "third answer") {
		t.Errorf("the transcript after the rewind:\n%s", s)
	}
	if bt, _ := os.ReadFile(b.transcript.path); !strings.Contains(string(bt), "second done") {
		t.Errorf("the branch's transcript:\n%s", bt)
	}
}

// A subagent's change is the parent turn's: the prompt's checkpoint is taken before it
// (the agent tool itself changes nothing), so a rewind takes it back.
func TestRewindCoversASubagentsChange(t *testing.T) {
	dir := project(t, "", map[string]string{"a.txt": "a\n"})
	subRan := false
	r := &router{
		parent: []scripted.Step{{Calls: []scripted.Call{{ID: "a", Name: "agent", Input: `{"prompt":"write the file","description":"writer"}`}}}},
		subStep: func(req llm.Request) scripted.Step {
			if subRan {
				return scripted.Step{Text: "written"}
			}
			subRan = true
			return scripted.Step{Calls: []scripted.Call{{ID: "s1", Name: "bash", Input: `{"command":"echo sub >> a.txt && echo new > b.txt"}`}}}
		},
	}
	a := open(t, Options{Cwd: dir, LLM: r, PermissionMode: "yolo"})
	ctx := context.Background()
	a.Run(ctx, "have a subagent write", nil)
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\nsub\n" {
		t.Fatalf("the subagent did not write: %q", b)
	}
	list, err := a.Checkpoints(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("checkpoints: %+v, %v", list, err)
	}
	if _, err := a.RewindFiles(ctx, 1, false); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt after the rewind: %q", b)
	}
	if _, err := os.Stat(filepath.Join(dir, "b.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("b.txt, made by the subagent, is still there: %v", err)
	}
}

// Files are rewound between turns only: during one, the model's own writes would race
// with the restore.
func TestRewindFilesWaitsForTheTurn(t *testing.T) {
	dir := project(t, "", map[string]string{"a.txt": "a\n"})
	gate := filepath.Join(t.TempDir(), "go-on")
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "b1", Name: "bash", Input: `{"command":"echo 1 >> a.txt"}`}}},
		scripted.Step{Text: "first done"},
		scripted.Step{Calls: []scripted.Call{{ID: "b2", Name: "bash", Input: `{"command":"while [ ! -e ` + gate + ` ]; do sleep 0.05; done"}`}}},
		scripted.Step{Text: "second done"},
	)
	started := make(chan struct{}, 1)
	a, err := newStarted(Options{Cwd: dir, LLM: m, PermissionMode: "yolo"}, func(e face.Event) {
		if r, ok := e.(face.ToolRunning); ok && r.CallID == "b2" {
			started <- struct{}{}
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	ctx := context.Background()
	a.Run(ctx, "first prompt", nil)
	done := make(chan struct{})
	go func() { a.Run(ctx, "second prompt", nil); close(done) }()
	testenv.Recv(t, started, testenv.Bound, "the second turn's command to start")
	if _, err := a.RewindFiles(ctx, 1, true); err == nil || !strings.Contains(err.Error(), "between turns") {
		t.Errorf("a rewind during a turn: %v", err)
	}
	if err := os.WriteFile(gate, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	testenv.Recv(t, done, testenv.Bound, "the second turn to end")
	if _, err := a.RewindFiles(ctx, 1, true); err != nil {
		t.Fatalf("the rewind after the turn: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "a\n" {
		t.Errorf("a.txt: %q", b)
	}
}
