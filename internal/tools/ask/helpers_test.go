package ask

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// fakeAsker answers AskUser with answer; it records what it was asked and the
// deadline of the context it got. Its other methods are not used by ask_user.
type fakeAsker struct {
	answer   func(ctx context.Context, qs []face.Question) (face.UserAnswer, error)
	asked    []face.Question
	deadline time.Time
}

func (f *fakeAsker) AskPermission(context.Context, face.PermissionRequest) (face.Answer, error) {
	panic("ask_user must not ask for permission")
}

func (f *fakeAsker) ApprovePlan(context.Context, face.PlanRequest) (face.PlanAnswer, error) {
	panic("ask_user must not ask for plan approval")
}

func (f *fakeAsker) AskUser(ctx context.Context, qs []face.Question) (face.UserAnswer, error) {
	f.asked = qs
	f.deadline, _ = ctx.Deadline()
	return f.answer(ctx, qs)
}

// answering returns an asker that gives these answers, one slice per question.
func answering(answers ...[]string) *fakeAsker {
	return &fakeAsker{answer: func(context.Context, []face.Question) (face.UserAnswer, error) {
		return face.UserAnswer{Answers: answers}, nil
	}}
}

// blocking returns an asker that waits until its context is done.
func blocking() *fakeAsker {
	return &fakeAsker{answer: func(ctx context.Context, _ []face.Question) (face.UserAnswer, error) {
		<-ctx.Done()
		return face.UserAnswer{}, ctx.Err()
	}}
}

// decode decodes args for ask_user and returns the invocation or the refusal.
func decode(asker face.Asker, timeout time.Duration, args string) (tool.Invocation, string) {
	return Tool(asker, timeout).Decode(tool.Env{Cwd: "/w"}, json.RawMessage(args))
}

// call decodes args, failing the test on a refusal, and runs the call under ctx.
func call(t *testing.T, ctx context.Context, asker face.Asker, timeout time.Duration, args string) tool.Result {
	t.Helper()
	inv, msg := decode(asker, timeout, args)
	if msg != "" {
		t.Fatalf("refused %s: %s", args, msg)
	}
	return inv.Run(ctx)
}

func (f *fakeAsker) TrustFolder(context.Context, face.TrustRequest) (bool, error) {
	panic("ask_user must not ask to trust a folder")
}
