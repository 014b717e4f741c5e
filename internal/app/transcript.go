package app

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/llm"
)

// transcript is the session's conversation as JSON Lines, the file hooks read through
// transcript_path: one object per message as the store takes it (see
// docs/hooks.md), appended as the session goes, kept across resumes. It is a copy for
// hooks, never read back by gantry: a write that fails is said once and the session
// goes on without it.
type transcript struct {
	path, sessionID, cwd string
	model                func() string

	mu     sync.Mutex
	f      *os.File
	err    error        // why the file cannot be written; set once
	said   bool         // err was told to the person
	notice func(string) // tells the person (nil until the face listens)
}

// transcriptPath is where the transcript of session id lives: transcripts/<id>.jsonl
// beside the session store.
func transcriptPath(opts Options, id string) string {
	return filepath.Join(filepath.Dir(StorePath(opts)), "transcripts", id+".jsonl")
}

// openTranscript opens (or creates, mode 0600) the transcript at path for appending.
// fresh says the file had nothing yet. A failure is kept for the first notice.
func openTranscript(path, sessionID, cwd string, model func() string) (t *transcript, fresh bool) {
	t = &transcript{path: path, sessionID: sessionID, cwd: cwd, model: model}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.err = err
		return t, false
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		t.err = err
		return t, false
	}
	t.f = f
	if fi, err := f.Stat(); err == nil && fi.Size() == 0 {
		fresh = true
	}
	return t, fresh
}

// listen sets how failures are told, and tells one that happened before.
func (t *transcript) listen(notice func(string)) {
	t.mu.Lock()
	t.notice = notice
	t.mu.Unlock()
	t.sayFailure()
}

// sayFailure tells the person, once, that the transcript cannot be written.
func (t *transcript) sayFailure() {
	t.mu.Lock()
	if t.err == nil || t.said || t.notice == nil {
		t.mu.Unlock()
		return
	}
	t.said = true
	notice, err := t.notice, t.err
	t.mu.Unlock()
	notice(fmt.Sprintf("the transcript %s cannot be written (%v): hooks that read transcript_path see no more of this session", t.path, err))
}

// line is one transcript line, in the shape of Claude Code's.
type line struct {
	Type      string       `json:"type"` // user, assistant, system
	Subtype   string       `json:"subtype,omitempty"`
	Content   string       `json:"content,omitempty"` // a system line's text
	SessionID string       `json:"sessionId"`
	Cwd       string       `json:"cwd"`
	Timestamp string       `json:"timestamp"`
	UUID      string       `json:"uuid"`
	Message   *lineMessage `json:"message,omitempty"`
}

type lineMessage struct {
	Role    string     `json:"role"`
	Model   string     `json:"model,omitempty"`
	Content any        `json:"content"` // a string (a plain prompt) or blocks
	Usage   *llm.Usage `json:"usage,omitempty"`
}

// lineBlock is a content block as Claude Code writes it.
type lineBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text,omitempty"`
	Thinking  string          `json:"thinking,omitempty"`
	ID        string          `json:"id,omitempty"`
	Name      string          `json:"name,omitempty"`
	Input     json.RawMessage `json:"input,omitempty"`
	ToolUseID string          `json:"tool_use_id,omitempty"`
	Content   *string         `json:"content,omitempty"`  // a tool result's text
	IsError   *bool           `json:"is_error,omitempty"` // a tool result's, always said
	Source    *imageSource    `json:"source,omitempty"`
}

// imageSource names an image's type; its data is left out of the transcript.
type imageSource struct {
	Type      string `json:"type"`
	MediaType string `json:"media_type"`
}

// message appends m (with its usage, for a model response).
func (t *transcript) message(m llm.Message, u *llm.Usage) {
	msg := &lineMessage{Role: string(m.Role), Content: contentOf(m), Usage: u}
	if m.Role == llm.RoleAssistant && t.model != nil {
		msg.Model = t.model()
	}
	t.write(line{Type: string(m.Role), Message: msg})
}

// rewrite makes the transcript the conversation msgs, as after a rewind of the
// conversation: what came later leaves this file (the branch that keeps it has a
// transcript of its own when it is resumed).
func (t *transcript) rewrite(msgs []llm.Message) {
	t.mu.Lock()
	if t.f == nil || t.err != nil {
		t.mu.Unlock()
		return
	}
	err := t.f.Truncate(0) // O_APPEND: the next write goes to the new end
	if err != nil {
		t.err = err
	}
	t.mu.Unlock()
	if err != nil {
		t.sayFailure()
		return
	}
	for _, m := range msgs {
		t.message(m, nil)
	}
}

// compacted appends the mark of a compaction: what follows is the model's new context.
func (t *transcript) compacted() {
	t.write(line{Type: "system", Subtype: "compact_boundary", Content: "Conversation compacted"})
}

// contentOf is m's content for the transcript: a prompt of one text block is that
// text, anything else a list of blocks.
func contentOf(m llm.Message) any {
	if m.Role == llm.RoleUser {
		// The date reminder is for the model, not for a hook reading the prompt: a
		// prompt with only reminders beside it is a string, as Claude Code writes it.
		m.Content = slices.DeleteFunc(slices.Clone(m.Content), func(b llm.Block) bool {
			return b.Type == llm.BlockText && strings.HasPrefix(b.Text, dateReminder)
		})
	}
	if m.Role == llm.RoleUser && len(m.Content) == 1 && m.Content[0].Type == llm.BlockText {
		return m.Content[0].Text
	}
	blocks := make([]lineBlock, 0, len(m.Content))
	for _, b := range m.Content {
		switch b.Type {
		case llm.BlockText:
			blocks = append(blocks, lineBlock{Type: "text", Text: b.Text})
		case llm.BlockThinking:
			blocks = append(blocks, lineBlock{Type: "thinking", Thinking: b.Text})
		case llm.BlockToolUse:
			in := b.Input
			if !json.Valid(in) {
				in, _ = json.Marshal(string(b.Input))
			}
			blocks = append(blocks, lineBlock{Type: "tool_use", ID: b.ToolCallID, Name: b.ToolName, Input: in})
		case llm.BlockToolResult:
			text, isErr := b.Text, b.IsError
			blocks = append(blocks, lineBlock{Type: "tool_result", ToolUseID: b.ToolCallID, Content: &text, IsError: &isErr})
		case llm.BlockImage:
			for _, img := range b.Images {
				blocks = append(blocks, lineBlock{Type: "image", Source: &imageSource{Type: "base64", MediaType: img.MediaType}})
			}
		}
	}
	return blocks
}

// write appends one line; the first failure is said and ends the transcript.
func (t *transcript) write(l line) {
	t.mu.Lock()
	if t.f == nil || t.err != nil {
		t.mu.Unlock()
		return
	}
	l.SessionID, l.Cwd = t.sessionID, t.cwd
	l.Timestamp = time.Now().UTC().Format(time.RFC3339Nano)
	l.UUID = newUUID()
	b, err := json.Marshal(l)
	if err == nil {
		_, err = t.f.Write(append(b, '\n'))
	}
	if err != nil {
		t.err = err
	}
	t.mu.Unlock()
	if err != nil {
		t.sayFailure()
	}
}

// close closes the file.
func (t *transcript) close() {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.f != nil {
		_ = t.f.Close()
		t.f = nil
	}
}

// newUUID is a random (version 4) UUID.
func newUUID() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	h := hex.EncodeToString(b[:])
	return h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:]
}

// transcribing is the session's Recorder that also keeps the transcript.
type transcribing struct {
	agent.Recorder
	t *transcript
}

func (r transcribing) AppendMessage(m llm.Message) error {
	err := r.Recorder.AppendMessage(m)
	r.t.message(m, nil)
	return err
}

func (r transcribing) AppendResponse(m llm.Message, u llm.Usage, cost float64) error {
	err := r.Recorder.AppendResponse(m, u, cost)
	r.t.message(m, &u)
	return err
}

func (r transcribing) MarkCompaction(history []llm.Message) error {
	err := r.Recorder.MarkCompaction(history)
	r.t.compacted()
	return err
}
