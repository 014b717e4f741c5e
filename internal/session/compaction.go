package session

import (
	"encoding/json"
	"fmt"

	"github.com/gantry-dev/gantry/internal/llm"
)

// compactionKind is the event that marks a compaction of the model's context.
const compactionKind = "compaction"

type compactionMark struct {
	// Seq is the last message the compaction summarised; messages after it follow
	// History in the model's context.
	Seq     int64         `json:"seq"`
	History []llm.Message `json:"history"`
}

// MarkCompaction records that the model's context was replaced by history (a
// summary) after the messages stored so far. The messages themselves stay: the full
// conversation is kept; Messages, for resuming, starts from the last mark.
func (s *Session) MarkCompaction(history []llm.Message) error {
	st := s.store
	st.wmu.Lock()
	seq, known := st.nextSeq[s.id]
	st.wmu.Unlock()
	if !known {
		var err error
		if seq, err = st.loadNextSeq(s.id); err != nil {
			return fmt.Errorf("session: mark compaction: %w", err)
		}
	}
	return s.AppendEvent(compactionKind, compactionMark{Seq: seq - 1, History: history})
}

// compacted applies the last compaction mark to the stored messages: the mark's
// history, then the messages stored after it.
func (s *Session) compacted(msgs []llm.Message, seqs []int64) ([]llm.Message, error) {
	events, err := s.Events(compactionKind)
	if err != nil || len(events) == 0 {
		return msgs, err
	}
	var mark compactionMark
	if err := json.Unmarshal(events[len(events)-1].Payload, &mark); err != nil {
		return nil, fmt.Errorf("session: read compaction: %w", err)
	}
	out := append([]llm.Message(nil), mark.History...)
	for i, m := range msgs {
		if seqs[i] > mark.Seq {
			out = append(out, m)
		}
	}
	return out, nil
}
