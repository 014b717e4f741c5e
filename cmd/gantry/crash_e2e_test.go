package main

import (
	"bufio"
	"database/sql"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/session"
)

// planSteps is the length of the kill harness's plan. Step k is one model response:
// a bash append of k to e.log; every third an edit that adds "step k" to notes.txt;
// every tenth a parallel step of two reads and the append.
const planSteps = 100

// planModel is the harness's model: it reads the conversation it is sent and asks
// for the step the history calls for — the next one when the last response's calls
// all have results, again the calls told they never ran — as a careful model would:
// a call told it may have taken effect is taken as done. It keeps every result it
// was sent.
type planModel struct {
	steps int // the plan's length
	// before, when set, is called with each step before it is asked for (the
	// full-disk test fills the disk there).
	before func(step int)

	mu       sync.Mutex
	nonce    int
	received map[string]string // call id → the result text the model was sent
}

// wireMessage is a message of an Anthropic request as gantry sends it.
type wireMessage struct {
	Role    string          `json:"role"`
	Content json.RawMessage `json:"content"`
}

type wireBlock struct {
	Type      string `json:"type"`
	ID        string `json:"id"`
	Text      string `json:"text"`
	ToolUseID string `json:"tool_use_id"`
	Content   []struct {
		Text string `json:"text"`
	} `json:"content"`
}

func blocksOf(m wireMessage) []wireBlock {
	var bs []wireBlock
	if json.Unmarshal(m.Content, &bs) != nil {
		return nil // a plain string: text
	}
	return bs
}

func resultText(b wireBlock) string {
	var s []string
	for _, c := range b.Content {
		s = append(s, c.Text)
	}
	return strings.Join(s, "")
}

// stepOf reads the step and call of an id "sK-J-N".
func stepOf(id string) (k, j int) {
	f := strings.Split(strings.TrimPrefix(id, "s"), "-")
	if len(f) != 3 {
		return 0, 0
	}
	k, _ = strconv.Atoi(f[0])
	j, _ = strconv.Atoi(f[1])
	return k, j
}

// stepCalls are the calls of step k: (name, input) by call index.
func stepCalls(k int) [][2]string {
	appendCall := [2]string{"bash", fmt.Sprintf(`{"command":"echo %d >> e.log"}`, k)}
	switch {
	case k%10 == 0:
		return [][2]string{{"read_file", `{"path":"notes.txt"}`}, {"glob", `{"pattern":"*.log"}`}, appendCall}
	case k%3 == 0:
		return [][2]string{{"edit_file", fmt.Sprintf(`{"path":"notes.txt","edits":[{"old":"END","new":"step %d\nEND"}]}`, k)}}
	}
	return [][2]string{appendCall}
}

func (pm *planModel) respond(r fakellm.Recorded) fakellm.Turn {
	var body struct {
		Messages []wireMessage `json:"messages"`
	}
	if err := json.Unmarshal(r.Raw, &body); err != nil {
		return fakellm.Turn{Status: 400}
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	var lastCalls []string
	results := map[string]string{}
	for _, m := range body.Messages {
		for _, b := range blocksOf(m) {
			if b.Type == "tool_result" {
				pm.received[b.ToolUseID] = resultText(b)
				results[b.ToolUseID] = resultText(b)
			}
		}
		if m.Role == "assistant" {
			lastCalls = lastCalls[:0]
			for _, b := range blocksOf(m) {
				if b.Type == "tool_use" {
					lastCalls = append(lastCalls, b.ID)
				}
			}
		}
	}
	step, redo := 1, map[int]bool{}
	if len(lastCalls) > 0 {
		k, _ := stepOf(lastCalls[0])
		for _, id := range lastCalls {
			if results[id] == session.NotRun {
				_, j := stepOf(id)
				redo[j] = true
			}
		}
		step = k + 1
		if len(redo) > 0 {
			step = k
		}
	} else if len(body.Messages) > 1 {
		step = pm.steps + 1 // the plan was done: a later prompt gets the final answer
	}
	if step > pm.steps {
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("All done.")}}
	}
	if pm.before != nil {
		pm.before(step)
	}
	pm.nonce++
	var parts []fakellm.Part
	for j, c := range stepCalls(step) {
		if len(redo) == 0 || redo[j] {
			parts = append(parts, fakellm.ToolCall(fmt.Sprintf("s%d-%d-%d", step, j, pm.nonce), c[0], c[1]))
		}
	}
	return fakellm.Turn{Parts: parts}
}

// killRun runs gantry with args until kill says to stop it, then kill -9s it. It
// returns the stream-json lines gantry wrote (all of them: what was in the pipe at
// the kill too) and whether it ran to its end unkilled.
func killRun(t *testing.T, dir string, environ []string, kill func(line map[string]any, n int) bool, args ...string) (lines []map[string]any, finished bool, stderr string) {
	t.Helper()
	cmd := exec.Command(binary, args...)
	cmd.Dir, cmd.Env = dir, environ
	var errb strings.Builder
	cmd.Stderr = &errb
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	guard := time.AfterFunc(90*time.Second, func() { cmd.Process.Kill() })
	defer guard.Stop()
	killed := false
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			t.Fatalf("gantry printed %q", sc.Text())
		}
		lines = append(lines, m)
		if !killed && kill(m, len(lines)) {
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	werr := cmd.Wait()
	return lines, !killed && werr == nil, errb.String()
}

// The kill harness: a scripted plan of bash appends, edits and parallel steps, run
// with gantry kill -9'd at random points — often just as a call starts — and
// continued after each kill. No effect happens twice, every result the model was
// sent is in the store, and every call the model is told may have taken effect had
// really been started.
func TestKillNineNeverRepeatsNorLoses(t *testing.T) {
	if testing.Short() {
		t.Skip("40 runs of gantry")
	}
	const kills = 40
	pm := &planModel{steps: planSteps, received: map[string]string{}}
	srv := fakellm.NewFunc(pm.respond)
	defer srv.Close()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "notes.txt"), []byte("notes\nEND\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	environ := env(t, "ANTHROPIC_BASE_URL="+srv.URL(), "ANTHROPIC_API_KEY=test-key")
	common := []string{"--output-format", "stream-json", "--permission-mode", "yolo", "--sandbox=false", "--max-turns", "200"}

	// Another writer of the store holds its write lock now and then, as another
	// session's gantry would: gantry's records wait for it, which widens every
	// window in which something could run before it is stored.
	stop := contend(t, filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "sessions.db"))
	defer stop()

	running := map[string]bool{}  // calls gantry said it was running, before each kill
	var lastRound strings.Builder // what the last run printed, for a failure's message
	var notices strings.Builder   // what the resumed runs said
	start := time.Now()
	killsDone, finished := 0, false
	for round := 0; killsDone < kills && !finished; round++ {
		args := append([]string{"-p", "run the plan"}, common...)
		if round > 0 {
			args = append([]string{"--continue", "-p", "go on"}, common...)
		}
		// A third of the kills land just as a call that acts starts (after its
		// tool_running line, within 3 ms), a third as a step's results go to the
		// store and the model (after its step_ended line), the others after a random
		// count of lines.
		mode := rand.IntN(3)
		nth := 1 + rand.IntN(3)
		after := 2 + rand.IntN(25)
		delay := time.Duration(rand.IntN(3000)) * time.Microsecond
		lines, done, stderr := killRun(t, dir, environ, func(m map[string]any, n int) bool {
			hit := false
			switch {
			case mode == 0 && m["type"] == "tool_running" && m["name"] != "read_file" && m["name"] != "glob",
				mode == 1 && m["type"] == "step_ended":
				nth--
				hit = nth == 0
			case mode == 2:
				hit = n >= after
			}
			if hit {
				time.Sleep(delay)
			}
			return hit
		}, args...)
		lastRound.Reset()
		for _, m := range lines {
			b, _ := json.Marshal(m)
			lastRound.Write(append(b, '\n'))
		}
		lastRound.WriteString("stderr:\n" + stderr)
		for _, m := range lines {
			if m["type"] == "tool_running" {
				running[m["id"].(string)] = true
			}
			if m["type"] == "notice" {
				notices.WriteString(m["text"].(string) + "\n")
			}
			if m["type"] == "result" && m["result"] == "All done." {
				finished = true
			}
		}
		if strings.Contains(stderr, "being run by another gantry") {
			t.Fatalf("round %d: the killed gantry's lease was not taken over:\n%s", round, stderr)
		}
		if done {
			if !finished {
				// It ended on its own without the plan's end: say what it said.
				var out strings.Builder
				for _, m := range lines {
					b, _ := json.Marshal(m)
					out.Write(append(b, '\n'))
				}
				t.Fatalf("round %d: gantry exited 0 before the plan's end, unkilled:\n%s\nstderr:\n%s", round, out.String(), stderr)
			}
		} else {
			killsDone++
		}
	}
	// Once more, unkilled, to the end.
	if !finished {
		r := gantry(t, dir, environ, append([]string{"--continue", "-p", "go on"}, common...)...)
		if r.code != 0 || !strings.Contains(r.stdout, `"All done."`) {
			t.Fatalf("the last run: exit %d\n%s\n%s", r.code, r.stdout, r.stderr)
		}
		for _, l := range strings.Split(r.stdout, "\n") {
			var m map[string]any
			if json.Unmarshal([]byte(l), &m) == nil && m["type"] == "notice" {
				notices.WriteString(m["text"].(string) + "\n")
			}
		}
	}
	took := time.Since(start)
	stop()

	// No effect happened twice, and every step not told "may have taken effect" took
	// effect once.
	log, _ := os.ReadFile(filepath.Join(dir, "e.log"))
	notes, _ := os.ReadFile(filepath.Join(dir, "notes.txt"))
	counts := map[int]int{}
	for _, l := range strings.Fields(string(log)) {
		k, _ := strconv.Atoi(l)
		counts[k]++
	}
	for _, l := range strings.Split(string(notes), "\n") {
		if k, ok := strings.CutPrefix(l, "step "); ok {
			n, _ := strconv.Atoi(k)
			counts[n]++
		}
	}
	pm.mu.Lock()
	defer pm.mu.Unlock()
	mayHave := map[int]bool{}
	told := 0
	for id, text := range pm.received {
		if text == session.MayHaveRun {
			told++
			k, _ := stepOf(id)
			mayHave[k] = true
			if !running[id] {
				t.Errorf("call %s was told it may have taken effect, but gantry had not said it was running", id)
			}
			if !strings.Contains(notices.String(), "("+id+")") {
				t.Errorf("the resumed session did not show that %s may have taken effect", id)
			}
		}
	}
	for k := 1; k <= planSteps; k++ {
		switch n := counts[k]; {
		case n > 1:
			t.Errorf("step %d took effect %d times", k, n)
		case n == 0 && !mayHave[k]:
			t.Errorf("step %d never took effect, and nothing said it may not have", k)
		}
	}
	if t.Failed() {
		t.Logf("the last run printed:\n%s", lastRound.String())
	}

	// Every result the model was sent is in the store.
	st, err := session.Open(filepath.Join(envValue(environ, "GANTRY_DATA_DIR"), "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	list, err := st.List(0)
	if err != nil || len(list) != 1 {
		t.Fatalf("sessions: %v, %v", list, err)
	}
	s, err := st.Get(list[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.RawMessages()
	if err != nil {
		t.Fatal(err)
	}
	stored := map[string]string{}
	for _, m := range raw {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolResult {
				stored[b.ToolCallID] = b.Text
			}
		}
	}
	missing := 0
	for id, text := range pm.received {
		if got, ok := stored[id]; !ok || got != text {
			missing++
			t.Errorf("the model was sent %s's result %q; the store has %q (%v)", id, text, got, ok)
		}
	}
	t.Logf("%d kills in %s; %d results sent to the model, %d missing from the store; %d calls told they may have taken effect; effects: %d steps once, none twice",
		killsDone, took.Round(time.Millisecond), len(pm.received), missing, told, len(counts))
}

// contend takes the write lock of the database at path (once it exists) for up to
// 20 ms at a time, with pauses of up to 5 ms, until the returned stop is called.
func contend(t *testing.T, path string) (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-done:
				return
			case <-time.After(5 * time.Millisecond):
			}
			if _, err := os.Stat(path); err == nil {
				break
			}
		}
		db, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(10000)&_txlock=immediate")
		if err != nil {
			t.Error(err)
			return
		}
		defer db.Close()
		for {
			select {
			case <-done:
				return
			case <-time.After(time.Duration(rand.IntN(5_000)) * time.Microsecond):
			}
			tx, err := db.Begin()
			if err != nil {
				continue // busy for 10 s: gantry held it; try again
			}
			time.Sleep(time.Duration(rand.IntN(20_000)) * time.Microsecond)
			tx.Rollback()
		}
	})
	var once sync.Once
	return func() { once.Do(func() { close(done); wg.Wait() }) }
}

func envValue(environ []string, key string) string {
	for _, kv := range environ {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			return v
		}
	}
	return ""
}
