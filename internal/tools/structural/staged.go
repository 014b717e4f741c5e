package structural

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Event kinds of the session store: a change staged, a change resolved.
const (
	StagedEventKind   = "ast_edit_staged"
	ResolvedEventKind = "ast_edit_resolved"
)

// maxStagedBytes bounds the new content one staged change holds.
const maxStagedBytes = 16 << 20

// Recorder stores session events; the session store implements it.
type Recorder interface {
	AppendEvent(kind string, payload any) error
}

// Edit is one staged change: the files a rewrite would write, each with the hash of
// the content it was computed from.
type Edit struct {
	ID      string     `json:"id"`
	Pattern string     `json:"pattern"`
	Rewrite string     `json:"rewrite"`
	Files   []EditFile `json:"files"`
}

// EditFile is one file of a staged change.
type EditFile struct {
	Path         string      `json:"path"` // absolute
	Shown        string      `json:"shown"`
	Hash         string      `json:"sha256"` // of the content the change was computed from
	Mode         os.FileMode `json:"mode"`
	New          string      `json:"new"`
	Replacements int         `json:"replacements"`
}

// Replacements is the count over every file.
func (e *Edit) Replacements() int {
	n := 0
	for _, f := range e.Files {
		n += f.Replacements
	}
	return n
}

// Staged holds a session's staged changes, numbered edit_1, edit_2, … in the order
// they are staged; each is recorded in the session store, so a resumed session can
// still resolve it (Restore). It is the session's resource: Close drops what is held
// in memory (the store keeps the record).
type Staged struct {
	rec   Recorder
	mu    sync.Mutex
	next  int
	edits map[string]*Edit
}

// NewStaged returns an empty store of staged changes recording into rec (nil: none).
func NewStaged(rec Recorder) *Staged { return &Staged{rec: rec, edits: map[string]*Edit{}} }

func hashOf(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// stage numbers e and keeps it; an error of the store is the caller's sentence.
func (s *Staged) stage(e *Edit) error {
	size := 0
	for _, f := range e.Files {
		size += len(f.New)
	}
	if size > maxStagedBytes {
		return fmt.Errorf("the change would hold %d MiB of new content, more than the %d MiB a staged change may; narrow the path", size>>20, maxStagedBytes>>20)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.next++
	e.ID = "edit_" + strconv.Itoa(s.next)
	if s.rec != nil {
		if err := s.rec.AppendEvent(StagedEventKind, e); err != nil {
			s.next--
			return fmt.Errorf("the session store could not record it: %v", err)
		}
	}
	s.edits[e.ID] = e
	return nil
}

// get returns a staged change.
func (s *Staged) get(id string) (*Edit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	e, ok := s.edits[id]
	return e, ok
}

// resolve drops a staged change and records how it ended.
func (s *Staged) resolve(id, action string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec != nil {
		if err := s.rec.AppendEvent(ResolvedEventKind, resolvedEvent{ID: id, Action: action}); err != nil {
			return fmt.Errorf("the session store could not record it: %v", err)
		}
	}
	delete(s.edits, id)
	return nil
}

// pending lists the ids of the staged changes, in order.
func (s *Staged) pending() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := make([]string, 0, len(s.edits))
	for id := range s.edits {
		ids = append(ids, id)
	}
	sort.Slice(ids, func(i, j int) bool { return idNumber(ids[i]) < idNumber(ids[j]) })
	return ids
}

func idNumber(id string) int {
	n, _ := strconv.Atoi(strings.TrimPrefix(id, "edit_"))
	return n
}

// paths are the files of a staged change (nil when there is none of that id).
func (s *Staged) paths(id string) []string {
	e, ok := s.get(id)
	if !ok {
		return nil
	}
	out := make([]string, len(e.Files))
	for i, f := range e.Files {
		out[i] = f.Path
	}
	return out
}

type resolvedEvent struct {
	ID     string `json:"id"`
	Action string `json:"action"`
}

// Restore puts back the changes still staged according to a session's events (both
// kinds, in the order stored), and the numbering after them, as on resume.
func (s *Staged) Restore(kinds []string, payloads []json.RawMessage) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for i, k := range kinds {
		switch k {
		case StagedEventKind:
			var e Edit
			if json.Unmarshal(payloads[i], &e) == nil && e.ID != "" {
				s.edits[e.ID] = &e
				s.next = max(s.next, idNumber(e.ID))
			}
		case ResolvedEventKind:
			var r resolvedEvent
			if json.Unmarshal(payloads[i], &r) == nil {
				delete(s.edits, r.ID)
			}
		}
	}
}

// Close drops the changes held in memory.
func (s *Staged) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	clear(s.edits)
}
