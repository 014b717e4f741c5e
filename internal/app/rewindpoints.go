package app

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/checkpoint"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/session"
)

// RewindPoint is a point of the live conversation a rewind can go back to: before one
// of its prompts, or a files rewind's restore point (the files as they were before
// it, so that it can be undone).
type RewindPoint struct {
	// Keep is the conversation's last message that stays: the later ones leave for
	// the branch (RewindConversationTo).
	Keep   int64
	Prompt string
	At     time.Time // when the prompt came, or the restore point was kept
	// Checkpoint is the N of the point's checkpoint (RewindFiles, RewindPreview); 0
	// when it has none (the prompt changed no file, or checkpoints were off): only
	// the conversation can go back.
	Checkpoint int
	// Changes are what changed from the checkpoint to the next point's checkpoint,
	// or to now.
	Changes []checkpoint.Change
	Skipped []string
}

// restorePrefix starts the prompt of a files rewind's restore point (RewindFiles).
const restorePrefix = "(before the rewind to "

// RewindPoints lists the points of the live conversation, oldest first: every prompt
// it still holds, with its checkpoint when it has one, and the restore points of files
// rewinds made since. Prompts an earlier rewind cut away are not among them, nor
// their checkpoints (which the session keeps): a checkpoint is the live prompt's only
// when that prompt's message was stored before the checkpoint was taken.
func (a *App) RewindPoints(ctx context.Context) ([]RewindPoint, error) {
	if err := a.records.Flush(); err != nil {
		return nil, err
	}
	msgs, err := a.sess.StoredMessages()
	if err != nil {
		return nil, err
	}
	cps, err := a.checkpointEvents()
	if err != nil {
		return nil, err
	}
	bySeq := map[int64]session.StoredMessage{}
	var points []RewindPoint
	at := map[int64]int{} // a prompt's message seq → its index in points
	for _, m := range msgs {
		bySeq[m.Seq] = m
		if text, ok := promptText(m.Message); ok {
			at[m.Seq] = len(points)
			points = append(points, RewindPoint{Keep: m.Seq - 1, Prompt: text, At: m.Created})
		}
	}
	// stillThere: the message seq is the one that was there at t (none was stored
	// under its number again since).
	stillThere := func(seq int64, t time.Time) bool {
		m, ok := bySeq[seq]
		return ok && (t.IsZero() || !m.Created.After(t))
	}
	var live []checkpointEvent
	var liveAt []int // each live checkpoint's point
	for _, c := range cps {
		if strings.HasPrefix(c.Prompt, restorePrefix) {
			if c.Seq == 0 || stillThere(c.Seq, c.At) {
				points = append(points, RewindPoint{Keep: c.Seq, Prompt: c.Prompt, At: c.At, Checkpoint: c.N, Skipped: c.Skipped})
				live, liveAt = append(live, c), append(liveAt, len(points)-1)
			}
			continue
		}
		i, ok := at[c.Seq+1]
		if !ok || !stillThere(c.Seq+1, c.At) || points[i].Checkpoint != 0 {
			continue // its prompt was cut away by a rewind
		}
		points[i].Checkpoint, points[i].Skipped = c.N, c.Skipped
		live, liveAt = append(live, c), append(liveAt, i)
	}
	if len(live) > 0 {
		commits := make([]string, len(live))
		for j, c := range live {
			commits[j] = c.Commit
		}
		changes, err := a.changesAfter(ctx, commits)
		if err != nil {
			return nil, err
		}
		for j := range live {
			points[liveAt[j]].Changes = changes[j]
		}
	}
	// In the conversation's order; a restore point comes before the prompt that
	// followed it (its time is earlier).
	sort.SliceStable(points, func(i, j int) bool {
		if points[i].Keep != points[j].Keep {
			return points[i].Keep < points[j].Keep
		}
		return points[i].At.Before(points[j].At)
	})
	return points, nil
}

// promptText is the prompt of a person's message: its first text that gantry did not
// add (reminders, hooks' context, a !command's output).
func promptText(m llm.Message) (string, bool) {
	if m.Role != llm.RoleUser {
		return "", false
	}
	for _, b := range m.Content {
		if b.Type == llm.BlockToolResult {
			return "", false
		}
		if b.Type == llm.BlockText && !Added(b) && !strings.HasPrefix(strings.TrimSpace(b.Text), "<bash-input>") {
			return b.Text, true
		}
	}
	return "", false
}

// RewindConversationTo cuts the conversation back to its message keep (a
// RewindPoint's Keep): the later messages leave this session for a new one, the
// branch (its id returned), which --resume can pick; the model's next request starts
// from what is left. what names the point in the notice ("prompt 3", "“fix the
// test”").
func (a *App) RewindConversationTo(ctx context.Context, keep int64, what string) (string, error) {
	if a.turnRunning() {
		return "", errors.New("the conversation is rewound between turns; wait until this one ends")
	}
	if err := a.records.Flush(); err != nil {
		return "", err
	}
	info, _ := a.sess.Info()
	branch, err := a.sess.Branch(keep, info.Title+" (before the rewind to "+what+")")
	if err != nil {
		return "", err
	}
	r, err := a.sess.Resume()
	if err != nil {
		return branch, fmt.Errorf("reading the session again after the rewind: %w", err)
	}
	a.agent.SetHistory(r.Messages)
	a.transcript.rewrite(r.Messages)
	a.emit(face.Notice{Info: true, Text: fmt.Sprintf("the conversation is back to before %s; what came after is kept in session %s (gantry -r %s)", what, branch, branch)})
	return branch, nil
}
