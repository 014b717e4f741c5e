package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gantry-dev/gantry/internal/checkpoint"
	"github.com/gantry-dev/gantry/internal/face"
)

// The session events of checkpoints.
const (
	eventCheckpoint      = "checkpoint"       // the tree before a prompt's first change
	eventCheckpointAfter = "checkpoint_after" // the tree when that prompt's turn ended
)

// checkpoints are the session's checkpoints: the project's shadow repository, opened
// by the first change.
type checkpoints struct {
	once sync.Once
	repo *checkpoint.Repo
	err  error
	said bool   // the notice that checkpoints are off was given
	cur  string // the prompt of the running turn

	taken  atomic.Bool        // a prompt's checkpoint was taken (the warm-up is then moot)
	warm   sync.WaitGroup     // the snapshot taken at the start, in the background
	cancel context.CancelFunc // stops it at Close
}

// warmUp takes a first snapshot in the background soon after the session starts, so
// that the first change of a prompt does not wait for a large project's first hashing
// (the next snapshot is incremental).
func (a *App) warmUp() {
	if !a.checkpointsOn() {
		return
	}
	ctx, cancel := context.WithCancel(context.Background())
	a.cps.cancel = cancel
	a.cps.warm.Add(1)
	go func() {
		defer a.cps.warm.Done()
		// Not at once: the first frame, or print mode's first request, would share the
		// CPU with git's hashing; a quarter of a second later the person is typing, or
		// the model thinking. A change before then takes its checkpoint itself.
		t := time.NewTimer(warmUpDelay)
		defer t.Stop()
		select {
		case <-t.C:
		case <-ctx.Done():
			return
		}
		if a.cps.taken.Load() {
			return // a change came first and took the session's first snapshot
		}
		repo, err := a.checkpointRepo()
		if err != nil {
			return
		}
		_, _ = repo.Snapshot(ctx, "refs/gantry/"+a.sess.ID()+"/warm", "the session's start")
	}()
}

// warmUpDelay is how long after the session's start the first snapshot waits.
const warmUpDelay = 250 * time.Millisecond

// stopWarmUp ends the background snapshot (Close).
func (a *App) stopWarmUp() {
	if a.cps.cancel != nil {
		a.cps.cancel()
	}
	a.cps.warm.Wait()
}

type checkpointEvent struct {
	N       int       `json:"n"`
	Prompt  string    `json:"prompt"`
	Seq     int64     `json:"seq"` // the stored conversation's last message when the prompt came
	Commit  string    `json:"commit"`
	Skipped []string  `json:"skipped,omitempty"`
	At      time.Time `json:"at,omitzero"` // when it was taken (zero in sessions from before)
}

func (a *App) checkpointRepo() (*checkpoint.Repo, error) {
	c := &a.cps
	c.once.Do(func() {
		root := filepath.Join(filepath.Dir(StorePath(a.opts)), "checkpoints")
		c.repo, c.err = checkpoint.Open(a.opts.Cwd, checkpoint.Options{Root: root, MaxFile: int64(a.cfg.Checkpoints.MaxFileMB) << 20, Never: []string{filepath.Dir(StorePath(a.opts))}, Secret: a.gate.DeniedReadPaths(), Policy: a.policy})
	})
	return c.repo, c.err
}

func (a *App) checkpointsOn() bool {
	return !a.opts.ToolServer && a.cfg.Checkpoints.Enabled()
}

// beforeChange keeps the tree as it is before the running prompt's first change.
func (a *App) beforeChange(ctx context.Context) {
	if !a.checkpointsOn() {
		return
	}
	repo, err := a.checkpointRepo()
	if err != nil {
		a.checkpointOff(err)
		return
	}
	list, _ := a.checkpointEvents()
	n := len(list) + 1
	a.cps.taken.Store(true)
	cp, err := repo.Snapshot(context.WithoutCancel(ctx), a.checkpointRef(n), fmt.Sprintf("prompt %d of session %s", n, a.sess.ID()))
	if err != nil {
		a.checkpointOff(err)
		return
	}
	prompt := a.cps.cur
	if r := []rune(prompt); len(r) > 300 {
		prompt = string(r[:300]) + "…"
	}
	_ = a.records.AppendEvent(eventCheckpoint, checkpointEvent{N: n, Prompt: prompt, Seq: a.cpSeq, Commit: cp.Commit, Skipped: cp.Skipped, At: time.Now().UTC()})
	if len(cp.Skipped) > 0 {
		a.emit(face.Notice{Text: fmt.Sprintf("not kept in the checkpoint (over %d MB): %s", a.cfg.Checkpoints.MaxFileMB, strings.Join(cp.Skipped, ", "))})
	}
}

// afterTurn keeps the tree as the turn left it, when it changed something: what differs
// from it later was changed by someone else.
func (a *App) afterTurn() {
	if !a.checkpointsOn() || !a.agent.Changed() {
		return
	}
	repo, err := a.checkpointRepo()
	if err != nil {
		return
	}
	list, _ := a.checkpointEvents()
	if len(list) == 0 {
		return
	}
	n := list[len(list)-1].N
	cp, err := repo.Snapshot(context.Background(), a.checkpointRef(n)+"-after", fmt.Sprintf("after prompt %d", n))
	if err != nil {
		a.checkpointOff(err)
		return
	}
	_ = a.records.AppendEvent(eventCheckpointAfter, checkpointEvent{N: n, Commit: cp.Commit})
}

// turnRunning reports whether a turn of the session runs now.
func (a *App) turnRunning() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.running
}

func (a *App) checkpointRef(n int) string { return fmt.Sprintf("refs/gantry/%s/%d", a.sess.ID(), n) }

// snapshotNow keeps the tree as it is now, to compare a checkpoint with.
func (a *App) snapshotNow(ctx context.Context, repo *checkpoint.Repo) (checkpoint.Checkpoint, error) {
	return repo.Snapshot(ctx, "refs/gantry/"+a.sess.ID()+"/now", "now")
}

func (a *App) checkpointOff(err error) {
	if a.cps.said {
		return
	}
	a.cps.said = true
	a.emit(face.Notice{Text: fmt.Sprintf("checkpoints are off for this session: %v", err)})
}

func (a *App) checkpointEvents() ([]checkpointEvent, error) {
	if err := a.records.Flush(); err != nil {
		return nil, err
	}
	evs, err := a.sess.Events(eventCheckpoint)
	if err != nil {
		return nil, err
	}
	var out []checkpointEvent
	for _, e := range evs {
		var c checkpointEvent
		if json.Unmarshal(e.Payload, &c) == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// Checkpoint is one prompt's checkpoint, as /rewind lists it: the tree before the
// prompt's first change, and what changed from there to the next checkpoint (or now).
type Checkpoint struct {
	N       int
	Prompt  string
	At      time.Time // when it was taken (zero when unknown)
	Skipped []string
	Changes []checkpoint.Change
}

// Checkpoints lists the session's checkpoints, oldest first.
func (a *App) Checkpoints(ctx context.Context) ([]Checkpoint, error) {
	list, err := a.checkpointEvents()
	if err != nil || len(list) == 0 {
		return nil, err
	}
	commits := make([]string, len(list))
	for i, c := range list {
		commits[i] = c.Commit
	}
	changes, err := a.changesAfter(ctx, commits)
	if err != nil {
		return nil, err
	}
	out := make([]Checkpoint, len(list))
	for i, c := range list {
		out[i] = Checkpoint{N: c.N, Prompt: c.Prompt, At: c.At, Skipped: c.Skipped, Changes: changes[i]}
	}
	return out, nil
}

// changesAfter are, for each of the checkpoints' commits (oldest first), the changes
// from it to the next one, the last one's to the work tree now.
func (a *App) changesAfter(ctx context.Context, commits []string) ([][]checkpoint.Change, error) {
	repo, err := a.checkpointRepo()
	if err != nil {
		return nil, err
	}
	now, err := a.snapshotNow(ctx, repo)
	if err != nil {
		return nil, err
	}
	out := make([][]checkpoint.Change, len(commits))
	for i, c := range commits {
		next := now.Commit
		if i+1 < len(commits) {
			next = commits[i+1]
		}
		if out[i], err = repo.Diff(ctx, c, next); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// ErrChangedOutside refuses a rewind that would overwrite files someone changed
// since gantry's last turn (RewindResult.Outside names them).
var ErrChangedOutside = errors.New("files were changed outside gantry since its last turn")

// RewindResult is what a rewind of files did, or would have overwritten.
type RewindResult struct {
	Restored []checkpoint.Change // from the checkpoint to the state before the rewind
	Outside  []string            // changed since gantry's last turn, by someone else
	Skipped  []string            // not kept by the checkpoint (over the size bound): left as they are
}

// RewindFiles brings the project's files back to checkpoint n (the state before that
// prompt's first change). Files changed outside gantry since its last turn are named,
// and nothing is written unless force; the state before the rewind is kept, so the
// rewind itself can be undone (it is the next checkpoint's).
func (a *App) RewindFiles(ctx context.Context, n int, force bool) (RewindResult, error) {
	if a.turnRunning() {
		return RewindResult{}, errors.New("the files are rewound between turns; wait until this one ends")
	}
	list, target, err := a.findCheckpoint(n)
	if err != nil {
		return RewindResult{}, err
	}
	repo, err := a.checkpointRepo()
	if err != nil {
		return RewindResult{}, err
	}
	res := RewindResult{Skipped: target.Skipped}
	now, err := a.snapshotNow(ctx, repo)
	if err != nil {
		return res, err
	}
	if res.Outside, err = a.changedOutside(ctx, repo, now.Commit); err != nil {
		return res, err
	}
	if len(res.Outside) > 0 && !force {
		return res, ErrChangedOutside
	}
	m := len(list) + 1
	restored, err := repo.Restore(ctx, checkpoint.Checkpoint{Commit: target.Commit}, a.checkpointRef(m))
	if err != nil {
		return res, err
	}
	res.Restored = restored
	// The state before the rewind is the next checkpoint: a rewind to it undoes this one.
	if cp, err := repo.Resolve(ctx, a.checkpointRef(m)); err == nil {
		seq, _ := a.sess.LastSeq()
		_ = a.records.AppendEvent(eventCheckpoint, checkpointEvent{N: m, Prompt: fmt.Sprintf("(before the rewind to %d)", n), Seq: seq, Commit: cp.Commit, At: time.Now().UTC()})
		if after, err := repo.Snapshot(ctx, a.checkpointRef(m)+"-after", "after the rewind"); err == nil {
			_ = a.records.AppendEvent(eventCheckpointAfter, checkpointEvent{N: m, Commit: after.Commit})
		}
	}
	return res, nil
}

// lastAfter is the commit of gantry's last known state of the tree.
func (a *App) lastAfter() (string, error) {
	evs, err := a.sess.Events(eventCheckpointAfter)
	if err != nil || len(evs) == 0 {
		return "", err
	}
	var c checkpointEvent
	if err := json.Unmarshal(evs[len(evs)-1].Payload, &c); err != nil {
		return "", err
	}
	return c.Commit, nil
}

// RewindConversation cuts the conversation back to before checkpoint n's prompt: the
// later messages leave this session for a new one, the branch (its id returned), which
// --resume can pick; the model's next request starts from what is left.
func (a *App) RewindConversation(ctx context.Context, n int) (string, error) {
	if a.turnRunning() {
		return "", errors.New("the conversation is rewound between turns; wait until this one ends")
	}
	_, target, err := a.findCheckpoint(n)
	if err != nil {
		return "", err
	}
	return a.RewindConversationTo(ctx, target.Seq, fmt.Sprintf("prompt %d", n))
}

// RewindPreview is what a rewind of the files to checkpoint n would do, as a unified
// diff from the files now to the checkpoint's, and the files changed outside gantry
// since its last turn (which the rewind would overwrite).
func (a *App) RewindPreview(ctx context.Context, n int) (diff string, outside []string, err error) {
	_, target, err := a.findCheckpoint(n)
	if err != nil {
		return "", nil, err
	}
	repo, err := a.checkpointRepo()
	if err != nil {
		return "", nil, err
	}
	now, err := a.snapshotNow(ctx, repo)
	if err != nil {
		return "", nil, err
	}
	if diff, err = repo.Patch(ctx, now.Commit, target.Commit); err != nil {
		return "", nil, err
	}
	outside, err = a.changedOutside(ctx, repo, now.Commit)
	return diff, outside, err
}

// findCheckpoint is the session's checkpoint n, with the whole list.
func (a *App) findCheckpoint(n int) ([]checkpointEvent, *checkpointEvent, error) {
	list, err := a.checkpointEvents()
	if err != nil {
		return nil, nil, err
	}
	for i := range list {
		if list[i].N == n {
			return list, &list[i], nil
		}
	}
	if len(list) == 0 {
		return nil, nil, errors.New("this session has no checkpoint: no prompt changed anything yet")
	}
	return nil, nil, fmt.Errorf("there is no checkpoint %d: the checkpoints are 1 to %d", n, len(list))
}

// changedOutside lists the files that differ between gantry's last known state of the
// tree (the end of its last turn) and now: someone else changed them.
func (a *App) changedOutside(ctx context.Context, repo *checkpoint.Repo, now string) ([]string, error) {
	after, err := a.lastAfter()
	if err != nil || after == "" {
		return nil, err
	}
	changed, err := repo.Diff(ctx, after, now)
	if err != nil {
		return nil, err
	}
	var paths []string
	for _, c := range changed {
		paths = append(paths, c.Path)
	}
	return paths, nil
}
