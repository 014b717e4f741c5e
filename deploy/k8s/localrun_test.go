package k8s

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// The twenty tasks of the local run: most clone a project of their own and edit it;
// some work in an empty folder; three fail on purpose.
const (
	localTasks   = 20
	localWorkers = 4
	taskFailing  = 7  // the model's provider refuses the request: gantry exits 1
	taskMaxTurns = 13 // its own flags allow one response: gantry exits 3
	taskNoClone  = 17 // its repository does not exist: task.sh exits 75
	taskOnBranch = 5  // its repository is cloned at a branch
)

func noRepo(i int) bool { return i%5 == 4 }

// wantExit is task i's exit status: gantry's, or task.sh's own when gantry never ran.
// Print mode's max-turns exit is 3 from the table of exit statuses per outcome (README
// "Exit status"), and 1 in a gantry that predates it.
func wantExit(i, got int) bool {
	switch i {
	case taskFailing:
		return got == 1
	case taskMaxTurns:
		return got == 3 || got == 1
	case taskNoClone:
		return got == 75
	}
	return got == 0
}

// localModel answers each task's requests by the task's index (in its prompt) and how
// many answers it has had (the assistant messages sent back).
func localModel(r fakellm.Recorded) fakellm.Turn {
	msgs, _ := r.Body["messages"].([]any)
	first, _ := json.Marshal(msgs[:min(1, len(msgs))])
	m := regexp.MustCompile(`Task ([0-9]+):`).FindSubmatch(first)
	if m == nil {
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("(not a task of this test)")}}
	}
	i, _ := strconv.Atoi(string(m[1]))
	step := 0
	for _, msg := range msgs {
		if mm, _ := msg.(map[string]any); mm["role"] == "assistant" {
			step++
		}
	}
	switch {
	case i == taskFailing:
		return fakellm.Turn{Status: 400}
	case noRepo(i) && step == 0:
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("c1", "bash", fmt.Sprintf(`{"command":"echo task %d > out.txt && cat out.txt"}`, i))}}
	case noRepo(i):
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(fmt.Sprintf("Task %d wrote out.txt.", i))}}
	case step == 0:
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Reading the notes."), fakellm.ToolCall("c1", "read_file", `{"path":"notes.txt"}`)}}
	case step == 1:
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("c2", "edit_file",
			fmt.Sprintf(`{"path":"notes.txt","edits":[{"old":"TODO","new":"done by task %d"}]}`, i))}}
	}
	return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text(fmt.Sprintf("Task %d is done: notes.txt says so.", i))}}
}

// summary is task.sh's N.json; any other field fails the decoding.
type summary struct {
	Index      int      `json:"index"`
	ExitCode   int      `json:"exit_code"`
	SessionID  *string  `json:"session_id"`
	Cost       *float64 `json:"total_cost_usd"`
	DurationMS *int64   `json:"duration_ms"`
	NumTurns   *int     `json:"num_turns"`
	Subtype    *string  `json:"subtype"`
	IsError    *bool    `json:"is_error"`
	Repo       *string  `json:"repo"`
	StartedAt  string   `json:"started_at"`
	FinishedAt string   `json:"finished_at"`
	Note       *string  `json:"note"`
}

// decodeSummary decodes an N.json, refusing any field summary lacks.
func decodeSummary(raw []byte) (summary, error) {
	var s summary
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	err := dec.Decode(&s)
	return s, err
}

// run is what the test saw of one task.sh run.
type run struct {
	code     int
	stdout   []byte
	startup  time.Duration // from the start to the first event on stdout
	lastLine time.Duration // from the start to the last event (the result)
	wall     time.Duration
	maxRSSKB int64 // the largest process of the task: bash, git, gantry or its commands
	stderr   string
	err      error
}

// TestTwentyTasksThroughTheEntryScript runs task.sh as the Indexed Job would, twenty
// times, four at a time, against the fake model: each index reads its task from a
// ConfigMap laid out as a pod mounts it, and leaves its stream and summary in a shared
// results folder, which collect.sh then tabulates.
func TestTwentyTasksThroughTheEntryScript(t *testing.T) {
	git := func(dir string, args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	root := t.TempDir()
	bin := gantryBin(t)
	script, err := filepath.Abs("task.sh")
	if err != nil {
		t.Fatal(err)
	}

	// The projects, each a git repository of its own, and the tasks' ConfigMap.
	cm := &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
		ObjectMeta: metav1.ObjectMeta{Name: "gantry-tasks"}, Data: map[string]string{}}
	for i := range localTasks {
		key := strconv.Itoa(i)
		cm.Data[key+".prompt"] = fmt.Sprintf("Task %d: in notes.txt, replace TODO with done by task %d.\n", i, i)
		switch {
		case noRepo(i):
			cm.Data[key+".prompt"] = fmt.Sprintf("Task %d: write out.txt.\n", i)
			continue
		case i == taskNoClone:
			cm.Data[key+".repo"] = "file://" + filepath.Join(root, "src", "missing")
			continue
		case i == taskMaxTurns:
			cm.Data[key+".flags"] = "--max-turns 1\n"
		}
		src := filepath.Join(root, "src", key)
		if err := os.MkdirAll(src, 0o755); err != nil {
			t.Fatal(err)
		}
		git(src, "init", "-q")
		if err := os.WriteFile(filepath.Join(src, "notes.txt"), []byte("status: TODO\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		git(src, "add", "notes.txt")
		git(src, "commit", "-q", "-m", "notes")
		if i == taskOnBranch {
			git(src, "checkout", "-q", "-b", "feature")
			if err := os.WriteFile(filepath.Join(src, "notes.txt"), []byte("status: TODO (feature branch)\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			git(src, "commit", "-q", "-a", "-m", "feature")
			git(src, "checkout", "-q", "main")
			cm.Data[key+".ref"] = "feature\n"
		}
		cm.Data[key+".repo"] = "file://" + src + "\n"
	}
	tasks := mountConfigMap(t, cm, filepath.Join(root, "tasks"))

	srv := fakellm.NewFunc(localModel)
	defer srv.Close()
	results, work := filepath.Join(root, "results"), filepath.Join(root, "work")
	environ := cleanEnv(
		"PATH="+bin+string(os.PathListSeparator)+os.Getenv("PATH"),
		"ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key", "NO_COLOR=1",
		"GANTRY_TASKS_DIR="+tasks, "GANTRY_RESULTS_DIR="+results, "GANTRY_WORK_DIR="+work,
		"GANTRY_EXTRA_FLAGS=--permission-mode yolo --max-turns 10",
	)

	runs := make([]run, localTasks)
	indexes := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range localWorkers {
		wg.Go(func() {
			for i := range indexes {
				runs[i] = runTask(script, root, i, environ)
			}
		})
	}
	for i := range localTasks {
		indexes <- i
	}
	close(indexes)
	wg.Wait() // each run is bounded by runTask's own deadline
	wall := time.Since(start)

	var startups, repoStartups, outside, ending []time.Duration
	var rss []int64
	for i, r := range runs {
		if r.err != nil {
			t.Fatalf("task %d: %v", i, r.err)
		}
		inside := checkTask(t, i, r, root)
		if i != taskNoClone && i != taskFailing {
			rss = append(rss, r.maxRSSKB)
			outside = append(outside, r.wall-inside)
			ending = append(ending, r.wall-r.lastLine)
			if noRepo(i) {
				startups = append(startups, r.startup)
			} else {
				repoStartups = append(repoStartups, r.startup)
			}
		}
	}
	if t.Failed() {
		return
	}

	// collect.sh's table: a header, one row per task in index order, the totals.
	cmd := exec.Command("bash", "collect.sh", results)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err = cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("collect.sh: %v, want exit 1 (three tasks failed)\n%s", err, out.String())
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != localTasks+2 || !strings.HasPrefix(lines[0], "INDEX  EXIT") ||
		!strings.HasPrefix(lines[len(lines)-1], "tasks: 20, succeeded: 17, failed: 3; cost: $") {
		t.Fatalf("collect.sh's table:\n%s", out.String())
	}
	for i, line := range lines[1 : localTasks+1] {
		f := strings.Fields(line)
		if f[0] != strconv.Itoa(i) || f[1] != strconv.Itoa(runs[i].code) {
			t.Errorf("collect.sh row %d: %q", i, line)
		}
	}
	if row := strings.Fields(lines[1+taskMaxTurns]); row[5] != "error_max_turns" {
		t.Errorf("collect.sh row %d: %q", taskMaxTurns, lines[1+taskMaxTurns])
	}
	t.Logf("collect.sh:\n%s", out.String())
	t.Logf("%d tasks, %d at a time: %v in all; start-up to the first event %v (empty folder) and %v (with a clone), "+
		"time outside gantry's own duration_ms %v, from the result event to the exit %v, median; peak RSS %d–%d KiB, median %d KiB",
		localTasks, localWorkers, wall.Round(time.Millisecond), median(startups).Round(time.Millisecond),
		median(repoStartups).Round(time.Millisecond), median(outside).Round(time.Millisecond), median(ending).Round(time.Millisecond),
		slices.Min(rss), slices.Max(rss), median(rss))
}

// mountConfigMap writes cm as YAML, decodes it back strictly as the API server would,
// and lays its keys out as files in dir, as the kubelet mounts a ConfigMap volume.
func mountConfigMap(t *testing.T, cm *corev1.ConfigMap, dir string) string {
	t.Helper()
	var y bytes.Buffer
	if err := decoder(t).Encode(cm, &y); err != nil {
		t.Fatal(err)
	}
	objs, err := decodeAll(decoder(t), y.Bytes())
	if err != nil || len(objs) != 1 {
		t.Fatalf("decoding the tasks' ConfigMap: %v (%d objects)\n%s", err, len(objs), y.String())
	}
	back, ok := objs[0].(*corev1.ConfigMap)
	if !ok {
		t.Fatalf("the tasks' ConfigMap decodes as a %T", objs[0])
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	writeData(t, dir, back.Data)
	return dir
}

// cleanEnv is this process's environment without anything that would steer gantry (keys,
// its folders, a Job's index), plus extra.
func cleanEnv(extra ...string) []string {
	var e []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "ANTHROPIC_"), strings.HasPrefix(k, "OPENAI_"), strings.HasPrefix(k, "GANTRY_"),
			strings.HasPrefix(k, "XDG_"), strings.HasPrefix(k, "CLAUDE_"), k == "JOB_COMPLETION_INDEX", k == "PATH", k == "HOME":
			continue
		}
		e = append(e, kv)
	}
	return append(e, extra...)
}

// runTask runs task.sh for index i as a pod would: its own HOME and temporary folder,
// its termination message file; stdout read as it comes.
func runTask(script, root string, i int, environ []string) run {
	own := filepath.Join(root, "pods", strconv.Itoa(i))
	home, tmp, termlog := filepath.Join(own, "home"), filepath.Join(own, "tmp"), filepath.Join(own, "termination-log")
	for _, d := range []string{home, tmp} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return run{err: err}
		}
	}
	if err := os.WriteFile(termlog, nil, 0o644); err != nil {
		return run{err: err}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = own
	cmd.Env = append(slices.Clip(environ), "JOB_COMPLETION_INDEX="+strconv.Itoa(i), "HOME="+home, "TMPDIR="+tmp, "GANTRY_TERMINATION_LOG="+termlog)
	killGroupOnCancel(cmd)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	pipe, err := cmd.StdoutPipe()
	if err != nil {
		return run{err: err}
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return run{err: err}
	}
	var r run
	br := bufio.NewReader(pipe)
	for {
		line, err := br.ReadBytes('\n')
		if len(line) > 0 && r.stdout == nil {
			r.startup = time.Since(start)
		}
		if len(line) > 0 {
			r.lastLine = time.Since(start)
		}
		r.stdout = append(r.stdout, line...)
		if err == io.EOF {
			break
		}
		if err != nil {
			r.err = err
			break
		}
	}
	err = cmd.Wait()
	r.wall = time.Since(start)
	if ee, ok := err.(*exec.ExitError); ok && ee.Exited() {
		r.code = ee.ExitCode()
	} else if err != nil {
		r.err = fmt.Errorf("task.sh: %w\n%s", err, stderr.String())
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.maxRSSKB = ru.Maxrss
	}
	r.stderr = stderr.String()
	return r
}

// checkTask checks what task i left: its summary, its stream, its project. It returns
// the task's duration_ms as gantry measured it (0 without one).
func checkTask(t *testing.T, i int, r run, root string) (inside time.Duration) {
	t.Helper()
	if !wantExit(i, r.code) {
		t.Errorf("task %d: exit %d\nstderr:\n%s\nstdout:\n%s", i, r.code, r.stderr, r.stdout)
		return inside
	}
	results := filepath.Join(root, "results")
	raw, err := os.ReadFile(filepath.Join(results, fmt.Sprintf("%d.json", i)))
	if err != nil {
		t.Errorf("task %d: %v", i, err)
		return inside
	}
	s, err := decodeSummary(raw)
	if err != nil {
		t.Errorf("task %d: %s: %v", i, raw, err)
		return inside
	}
	if term, _ := os.ReadFile(filepath.Join(root, "pods", strconv.Itoa(i), "termination-log")); !bytes.Equal(term, raw) {
		t.Errorf("task %d: the termination message %q is not the summary %q", i, term, raw)
	}
	if s.Index != i || s.ExitCode != r.code || s.StartedAt == "" || s.FinishedAt < s.StartedAt {
		t.Errorf("task %d: summary %s (exit %d)", i, raw, r.code)
	}
	stream, err := os.ReadFile(filepath.Join(results, fmt.Sprintf("%d.jsonl", i)))
	if i == taskNoClone {
		if s.SessionID != nil || s.Note == nil || !strings.Contains(*s.Note, "cannot clone") || len(r.stdout) != 0 || err == nil {
			t.Errorf("task %d (no repository): summary %s, stdout %q, stream file: %v", i, raw, r.stdout, err)
		}
		return inside
	}
	if !bytes.Equal(stream, r.stdout) || len(stream) == 0 {
		t.Errorf("task %d: the stream file (%d bytes) is not what stdout had (%d bytes)", i, len(stream), len(r.stdout))
	}
	var initSession, resultSession string
	for line := range bytes.Lines(stream) {
		var ev map[string]any
		if err := json.Unmarshal(line, &ev); err != nil {
			t.Errorf("task %d: a stream line is not JSON: %q", i, line)
			continue
		}
		switch ev["type"] {
		case "system":
			initSession, _ = ev["session_id"].(string)
		case "result":
			resultSession, _ = ev["session_id"].(string)
		}
	}
	if s.SessionID == nil || *s.SessionID == "" || *s.SessionID != initSession || *s.SessionID != resultSession {
		t.Errorf("task %d: summary's session %v, the stream's %q and %q", i, s.SessionID, initSession, resultSession)
	}
	if s.Subtype == nil || s.IsError == nil || s.DurationMS == nil || s.NumTurns == nil || s.Cost == nil {
		t.Errorf("task %d: summary lacks the result's fields: %s", i, raw)
		return inside
	}
	inside = time.Duration(*s.DurationMS) * time.Millisecond
	switch i {
	case taskFailing:
		if !*s.IsError || *s.Subtype == "success" {
			t.Errorf("task %d: summary %s for a refused request", i, raw)
		}
		return inside
	case taskMaxTurns:
		if !*s.IsError || *s.Subtype != "error_max_turns" || *s.NumTurns != 1 {
			t.Errorf("task %d: summary %s, want error_max_turns after one turn", i, raw)
		}
		return inside
	}
	turns := 3
	if noRepo(i) {
		turns = 2
	}
	if *s.IsError || *s.Subtype != "success" || *s.NumTurns != turns || *s.Cost <= 0 || *s.DurationMS <= 0 {
		t.Errorf("task %d: summary %s, want success in %d turns with a cost and a duration", i, raw, turns)
	}
	dir := filepath.Join(root, "work", strconv.Itoa(i))
	if noRepo(i) {
		if got, _ := os.ReadFile(filepath.Join(dir, "out.txt")); string(got) != fmt.Sprintf("task %d\n", i) {
			t.Errorf("task %d: out.txt is %q", i, got)
		}
		return inside
	}
	want := fmt.Sprintf("status: done by task %d\n", i)
	if i == taskOnBranch {
		want = fmt.Sprintf("status: done by task %d (feature branch)\n", i)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "notes.txt")); string(got) != want {
		t.Errorf("task %d: notes.txt is %q, want %q", i, got, want)
	}
	return inside
}

func median[T int64 | time.Duration](xs []T) T {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[len(s)/2]
}
