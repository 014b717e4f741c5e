package tui

import (
	"context"
	"sync"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/face"
)

// dialog is a question on screen. The program calls key and view; the asker waits
// on the dialog's answer.
type dialog interface {
	// key handles a key press and reports whether the dialog is answered.
	key(m *Model, k tea.KeyPressMsg) (done bool)
	paste(text string)
	view(m *Model) string
	// cancel answers that the question was withdrawn (the turn was interrupted).
	cancel()
}

// askMsg shows a dialog; closeDialogMsg removes one whose asker gave up.
type (
	askMsg         struct{ d dialog }
	closeDialogMsg struct{ d dialog }
)

// once is the one answer of a dialog.
type once[T any] struct {
	o  sync.Once
	ch chan T
}

func newOnce[T any]() *once[T] { return &once[T]{ch: make(chan T, 1)} }

func (o *once[T]) give(v T) { o.o.Do(func() { o.ch <- v }) }

// asker is face.Asker for the terminal: each question is a dialog.
type asker struct {
	send func(tea.Msg)
	// early asks a folder's trust on the terminal while the program does not run
	// yet (the first session); nil once it runs.
	early *lineQuestion
}

type permAnswer struct {
	ans face.Answer
	err error
}

// AskPermission implements face.Asker.
func (a *asker) AskPermission(ctx context.Context, req face.PermissionRequest) (face.Answer, error) {
	d := newPermissionDialog(req)
	r, err := wait(ctx, a.send, d, d.answer)
	if err != nil {
		return face.DenyOnce, err
	}
	return r.ans, r.err
}

type userAnswer struct {
	ans face.UserAnswer
	err error
}

// AskUser implements face.Asker.
func (a *asker) AskUser(ctx context.Context, qs []face.Question) (face.UserAnswer, error) {
	d := newQuestionDialog(qs)
	r, err := wait(ctx, a.send, d, d.answer)
	if err != nil {
		return face.UserAnswer{}, err
	}
	return r.ans, r.err
}

type planAnswer struct {
	ans face.PlanAnswer
	err error
}

// ApprovePlan implements face.Asker.
func (a *asker) ApprovePlan(ctx context.Context, req face.PlanRequest) (face.PlanAnswer, error) {
	d := newPlanDialog(req)
	r, err := wait(ctx, a.send, d, d.answer)
	if err != nil {
		return face.PlanAnswer{}, err
	}
	return r.ans, r.err
}

// wait shows d and waits for its answer or for ctx's end (then the dialog goes).
func wait[T any](ctx context.Context, send func(tea.Msg), d dialog, answer *once[T]) (T, error) {
	send(askMsg{d})
	select {
	case v := <-answer.ch:
		return v, nil
	case <-ctx.Done():
		send(closeDialogMsg{d})
		var zero T
		return zero, ctx.Err()
	}
}

// dropDialog removes d from the queue of dialogs.
func (m *Model) dropDialog(d dialog) {
	for i, x := range m.dialogs {
		if x == d {
			m.dialogs = append(m.dialogs[:i], m.dialogs[i+1:]...)
			return
		}
	}
}
