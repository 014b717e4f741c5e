package session

import (
	"bufio"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
)

// helperEnv, when set, makes the test binary the crash test's writer; its value is the
// database path.
const helperEnv = "GANTRY_SESSION_CRASH_DB"

const crashCwd = "/crash/test"

// TestHelperWriter is not a test on its own: TestKillMidTurn runs the test binary again
// with only this function and helperEnv set. It resumes the last session of crashCwd
// (or creates one) and writes turns until it is killed, printing "msg N" / "event N"
// after each write has returned, N being how many are stored then.
func TestHelperWriter(t *testing.T) {
	path := os.Getenv(helperEnv)
	if path == "" {
		t.Skip("helper process for TestKillMidTurn")
	}
	st, err := Open(path)
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	s, err := st.Last(crashCwd)
	if errors.Is(err, ErrNotFound) {
		s, err = st.Create(Meta{Cwd: crashCwd, Title: "crash"})
	}
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	in, err := s.Info()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	evs, err := s.Events()
	if err != nil {
		fmt.Println("error", err)
		os.Exit(3)
	}
	msgs, events := in.Messages, len(evs)
	fmt.Printf("session %s\n", s.ID())
	check := func(err error) {
		if err != nil {
			fmt.Println("error", err)
			os.Exit(3)
		}
	}
	big := strings.Repeat("output line\n", 200) // rows of several pages, to be torn if they could
	for i := 0; ; i++ {
		id := fmt.Sprintf("call-%d-%d", msgs, i)
		check(s.AppendMessage(assistant(llm.Block{Type: llm.BlockText, Text: "running"}, call(id, "bash"))))
		msgs++
		fmt.Printf("msg %d\n", msgs)
		check(s.AppendEvent("tool_call", map[string]string{"id": id}))
		events++
		fmt.Printf("event %d\n", events)
		check(s.AppendMessage(user(result(id, big))))
		msgs++
		fmt.Printf("msg %d\n", msgs)
		check(s.AddUsage(usage(3, 4), 0.001))
		check(s.EndTurn())
	}
}

func TestKillMidTurn(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	path := t.TempDir() + "/sessions.db"
	var id string
	for round := range 4 {
		acked := map[string]int{}
		sid := runAndKill(t, path, 100+rand.IntN(300), acked)
		if id == "" {
			id = sid
		} else if sid != id {
			t.Fatalf("round %d: the writer did not resume session %s but used %s", round, id, sid)
		}
		checkAfterKill(t, path, id, acked["msg"], acked["event"])
	}
}

// runAndKill starts the writer, lets it store about n acknowledged writes, kills it
// with SIGKILL, and returns its session id; acked gets the last count of each kind
// the writer printed.
func runAndKill(t *testing.T, path string, n int, acked map[string]int) string {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperWriter$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+path)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	killed := false
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer timer.Stop()
	var sid string
	lines := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		kind, val, _ := strings.Cut(sc.Text(), " ")
		switch kind {
		case "session":
			sid = val
		case "msg", "event":
			v, err := strconv.Atoi(val)
			if err != nil {
				t.Fatalf("writer printed %q", sc.Text())
			}
			acked[kind] = v
			lines++
		default:
			t.Fatalf("writer printed %q", sc.Text())
		}
		if lines == n && !killed {
			// Kill after a short random delay, so the kill lands anywhere in a write.
			time.Sleep(time.Duration(rand.IntN(500)) * time.Microsecond)
			if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			killed = true
		}
	}
	err = cmd.Wait()
	if !killed {
		t.Fatalf("writer stopped by itself after %d writes: %v", lines, err)
	}
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("writer did not die of SIGKILL: %v", err)
	}
	return sid
}

// checkAfterKill opens the database the writer was killed on and checks that it is
// whole, that every acknowledged write is there, that at most the one in flight is
// missing, and that the history can be resumed.
func checkAfterKill(t *testing.T, path, id string, ackedMsgs, ackedEvents int) {
	t.Helper()
	st, err := Open(path)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer st.Close()
	var integrity string
	if err := st.db.QueryRow("PRAGMA integrity_check").Scan(&integrity); err != nil || integrity != "ok" {
		t.Fatalf("integrity_check: %q %v", integrity, err)
	}
	s, err := st.Get(id)
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	raw, err := s.RawMessages() // fails on a torn row: its JSON would not decode
	if err != nil {
		t.Fatal(err)
	}
	evs, err := s.Events()
	if err != nil {
		t.Fatal(err)
	}
	var maxSeq, rows int
	if err := st.db.QueryRow("SELECT max(seq), count(*) FROM messages WHERE session_id = ?", id).Scan(&maxSeq, &rows); err != nil {
		t.Fatal(err)
	}
	if maxSeq != rows || rows != len(raw) || in.Messages != len(raw) {
		t.Errorf("messages: %d rows, highest seq %d, counter %d", rows, maxSeq, in.Messages)
	}
	lostMsgs, lostEvents := len(raw)-ackedMsgs, len(evs)-ackedEvents
	if lostMsgs < 0 || lostEvents < 0 {
		t.Fatalf("acknowledged writes lost: %d messages stored of %d acked, %d events of %d", len(raw), ackedMsgs, len(evs), ackedEvents)
	}
	if lostMsgs+lostEvents > 1 {
		t.Errorf("more than the one write in flight is unacknowledged: %d messages, %d events", lostMsgs, lostEvents)
	}
	msgs, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	if err := validHistory(msgs); err != nil {
		t.Errorf("repaired history cannot be resumed: %v", err)
	}
	t.Logf("killed after %d messages and %d events acknowledged; stored %d and %d", ackedMsgs, ackedEvents, len(raw), len(evs))
}

// validHistory checks what the model APIs check: no empty message, no two user
// messages in a row, and every tool call answered exactly once, first thing, by the
// next user message, which answers nothing else.
func validHistory(msgs []llm.Message) error {
	for i, m := range msgs {
		if len(m.Content) == 0 {
			return fmt.Errorf("message %d is empty", i)
		}
		if i > 0 && m.Role == llm.RoleUser && msgs[i-1].Role == llm.RoleUser {
			return fmt.Errorf("messages %d and %d are both from the user", i-1, i)
		}
		var calls []llm.Block
		if i > 0 && msgs[i-1].Role == llm.RoleAssistant {
			calls = msgs[i-1].ToolCalls()
		}
		if m.Role == llm.RoleAssistant {
			if len(m.ToolCalls()) > 0 && (i+1 == len(msgs) || msgs[i+1].Role != llm.RoleUser) {
				return fmt.Errorf("message %d: tool calls not followed by a user message", i)
			}
			continue
		}
		for j, c := range calls {
			if j >= len(m.Content) || m.Content[j].Type != llm.BlockToolResult || m.Content[j].ToolCallID != c.ToolCallID {
				return fmt.Errorf("message %d: block %d is not the result of call %s", i, j, c.ToolCallID)
			}
		}
		for j, b := range m.Content[len(calls):] {
			if b.Type == llm.BlockToolResult {
				return fmt.Errorf("message %d: block %d is a result of no call", i, len(calls)+j)
			}
		}
	}
	return nil
}
