package session

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func TestConcurrentWriters(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	// A second handle on the same session, as a second face would have.
	s2, err := st.Get(s.ID())
	if err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, writers*each*3)
	for w := range writers {
		h := s
		if w%2 == 1 {
			h = s2
		}
		wg.Go(func() {
			for i := range each {
				errs <- h.AppendMessage(userText(fmt.Sprintf("%d/%d", w, i)))
				errs <- h.AppendEvent("tick", i)
				errs <- h.AddUsage(usage(1, 2), 0.01)
			}
		})
		wg.Go(func() {
			for range each {
				if _, err := st.List(5); err != nil {
					errs <- err
				}
				if _, err := h.RawMessages(); err != nil {
					errs <- err
				}
			}
		})
	}
	testenv.Wait(t, &wg, testenv.Bound, "the readers")
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	raw, err := s.RawMessages()
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, m := range raw {
		seen[m.Text()] = true
	}
	evs, err := s.Events()
	if err != nil {
		t.Fatal(err)
	}
	in, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	n := writers * each
	if len(raw) != n || len(seen) != n || len(evs) != n || in.Messages != n || in.Usage != usage(int64(n), int64(2*n)) {
		t.Errorf("%d messages (%d distinct), %d events, info %+v; want %d of each", len(raw), len(seen), len(evs), in, n)
	}
}

// TestAppendAfterAnotherProcess: messages stored behind the store's back (by another
// process) make the next append retry with the following sequence number.
func TestAppendAfterAnotherProcess(t *testing.T) {
	st := openTemp(t)
	s := mustCreate(t, st, "/p")
	if err := s.AppendMessage(userText("1")); err != nil {
		t.Fatal(err)
	}
	for seq := 2; seq <= 3; seq++ {
		body, _ := json.Marshal(userText(fmt.Sprint(seq)))
		if _, err := st.db.Exec(`INSERT INTO messages (session_id, seq, role, body, created) VALUES (?, ?, 'user', ?, ?)`,
			s.ID(), seq, string(body), time.Now().UnixNano()); err != nil {
			t.Fatal(err)
		}
	}
	before, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendMessage(userText("4")); err != nil {
		t.Fatal(err)
	}
	if err := s.AddUsage(usage(1, 1), 0); err != nil {
		t.Fatal(err)
	}
	raw, err := s.RawMessages()
	if err != nil {
		t.Fatal(err)
	}
	var texts []string
	for _, m := range raw {
		texts = append(texts, m.Text())
	}
	in, err := s.Info()
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(texts, ",") != "1,2,3,4" || in.Messages != 4 {
		t.Errorf("messages %v, info %+v", texts, in)
	}
	if !in.Updated.After(before.Updated) {
		t.Errorf("updated %v, not after %v", in.Updated, before.Updated)
	}
}
