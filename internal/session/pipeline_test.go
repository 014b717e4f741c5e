package session

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestPipelineKeepsOrderAndFlushes(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	p := NewPipeline(s)
	for i := 0; i < 20; i++ {
		if err := p.AppendMessage(userText(fmt.Sprintf("m%d", i))); err != nil {
			t.Fatal(err)
		}
		if err := p.AppendEvent("tool_finished", map[string]int{"i": i}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.AddUsage(usage(10, 1), 0.5); err != nil {
		t.Fatal(err)
	}
	if err := p.EndTurn(); err != nil { // flushes
		t.Fatal(err)
	}
	msgs, err := s.RawMessages()
	if err != nil || len(msgs) != 20 || msgs[19].Text() != "m19" || msgs[0].Text() != "m0" {
		t.Fatalf("messages after EndTurn: %d %v", len(msgs), err)
	}
	evs, _ := s.Events("tool_finished")
	if len(evs) != 20 || string(evs[19].Payload) != `{"i":19}` {
		t.Fatalf("events: %d", len(evs))
	}
	in, _ := s.Info()
	if in.Turns != 1 || in.Usage.InputTokens != 10 || in.Cost != 0.5 {
		t.Fatalf("info %+v", in)
	}
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Close(); err != nil {
		t.Fatal("second Close:", err)
	}
	if err := p.AppendEvent("x", 1); err == nil || !strings.Contains(err.Error(), "closed") {
		t.Fatalf("write after close: %v", err)
	}
}

// At most one record is ever in the writer's hands: the next hand-over waits.
func TestPipelineHoldsOneRecordAtMost(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	p := NewPipeline(s)
	defer p.Close()
	release := make(chan struct{})
	started := make(chan struct{})
	if err := p.submit(func() error { close(started); <-release; return nil }); err != nil {
		t.Fatal(err)
	}
	testenv.Recv(t, started, testenv.Bound, "the first record's write to begin")
	handed := make(chan struct{})
	go func() {
		_ = p.AppendMessage(assistantText("second"))
		close(handed)
	}()
	select {
	case <-handed:
		t.Fatal("a second record was taken while the first was being written")
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	testenv.Recv(t, handed, testenv.Bound, "the second record to be taken")
	if err := p.Flush(); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.RawMessages(); len(msgs) != 1 {
		t.Fatalf("%d messages", len(msgs))
	}
}

func TestPipelineReportsWriteErrors(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	p := NewPipeline(s)
	defer p.Close()
	bad := func() error { return fmt.Errorf("disk on fire") }
	err := p.submit(bad) // reported by this call if it already failed, else by Flush
	if err == nil {
		err = p.Flush()
	}
	if err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("the write error was lost: %v", err)
	}
	if err := p.AppendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "ok"}}}); err != nil {
		t.Fatalf("an error is reported once: %v", err)
	}
}

func TestAppendResponseStoresMessageAndUsageTogether(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	if err := s.AppendMessage(userText("q")); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendResponse(assistantText("a"), usage(120, 7), 0.25); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(usage(5, 1), 0.01); err != nil {
		t.Fatal(err)
	}
	msgs, _ := s.RawMessages()
	in, err := s.Info()
	if err != nil || len(msgs) != 2 || msgs[1].Text() != "a" || in.Messages != 2 || in.Usage.InputTokens != 125 || in.Usage.OutputTokens != 8 || in.Cost != 0.26 {
		t.Fatalf("messages %d, info %+v, err %v", len(msgs), in, err)
	}
}

func TestResumeStartsFromTheLastCompaction(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/w")
	p := NewPipeline(s)
	for i := 0; i < 6; i++ {
		_ = p.AppendMessage(userText(fmt.Sprintf("q%d", i)))
		_ = p.AppendMessage(assistantText(fmt.Sprintf("a%d", i)))
	}
	summary := []llm.Message{userText("<summary>six questions</summary>"), assistantText("Understood.")}
	_ = p.MarkCompaction(summary)
	_ = p.AppendMessage(userText("q6"))
	_ = p.AppendMessage(assistantText("a6"))
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := s.Messages()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range got {
		texts = append(texts, m.Text())
	}
	if strings.Join(texts, "|") != "<summary>six questions</summary>|Understood.|q6|a6" {
		t.Fatalf("resumed context: %v", texts)
	}
	if raw, _ := s.RawMessages(); len(raw) != 14 {
		t.Fatalf("the full history must stay: %d messages", len(raw))
	}
}

// Flush while other goroutines hand records over (a background subagent's usage
// beside the loop's barriers): every record is written, no race, no panic.
func TestPipelineFlushBesideWriters(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	p := NewPipeline(s)
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if err := p.AddUsage(usage(int64(w), int64(i)), 0); err != nil {
					t.Error(err)
				}
				if i%5 == 0 {
					if err := p.Flush(); err != nil {
						t.Error(err)
					}
				}
			}
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the writers")
	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	in, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(4 * 50 * 49 / 2); in.Usage.OutputTokens != want {
		t.Errorf("output tokens %d, want %d: records were lost", in.Usage.OutputTokens, want)
	}
}
