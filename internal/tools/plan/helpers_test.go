package plan

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// fakeSession is a Session whose AllowForSession refuses any rule that starts with
// "bad" and records the others; Suggest is a real engine's.
type fakeSession struct {
	mu    sync.Mutex
	mode  permission.Mode
	rules []string
}

func (s *fakeSession) Mode() permission.Mode {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.mode
}

func (s *fakeSession) SetMode(m permission.Mode) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.mode = m
}

func (s *fakeSession) Suggest(c permission.Call) permission.Grant {
	e, err := permission.NewEngine(permission.ModeDefault, nil, nil)
	if err != nil {
		panic(err)
	}
	return e.Suggest(c)
}

func (s *fakeSession) AllowForSession(rules []string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, r := range rules {
		if strings.HasPrefix(r, "bad") {
			return errors.New("unknown tool \"" + strings.SplitN(r, ":", 2)[0] + "\"")
		}
	}
	s.rules = append(s.rules, rules...)
	return nil
}

// fakeAsker answers ApprovePlan with verdict and records the plan it was shown;
// before, when set, runs while the plan is shown (the person acting meanwhile).
type fakeAsker struct {
	verdict func(ctx context.Context) (face.PlanAnswer, error)
	plan    string
	req     face.PlanRequest
	before  func()
}

func (f *fakeAsker) AskPermission(context.Context, face.PermissionRequest) (face.Answer, error) {
	panic("plan tools must not ask for permission")
}

func (f *fakeAsker) AskUser(context.Context, []face.Question) (face.UserAnswer, error) {
	panic("plan tools must not ask questions")
}

func (f *fakeAsker) ApprovePlan(ctx context.Context, req face.PlanRequest) (face.PlanAnswer, error) {
	f.plan, f.req = req.Plan, req
	if f.before != nil {
		f.before()
	}
	return f.verdict(ctx)
}

// verdict returns an asker that answers approved with feedback.
func verdict(approved bool, feedback string) *fakeAsker {
	return &fakeAsker{verdict: func(context.Context) (face.PlanAnswer, error) {
		return face.PlanAnswer{Approved: approved, Feedback: feedback}, nil
	}}
}

// run decodes args for t, failing the test on a refusal, and runs the call.
func run(t *testing.T, ctx context.Context, tl tool.Tool, args string) tool.Result {
	t.Helper()
	inv, msg := tl.Decode(tool.Env{Cwd: "/w"}, json.RawMessage(args))
	if msg != "" {
		t.Fatalf("%s refused %s: %s", tl.Name(), args, msg)
	}
	return inv.Run(ctx)
}

// tools returns enter_plan_mode and exit_plan_mode over a session in mode m.
func tools(m permission.Mode, asker face.Asker) (*fakeSession, tool.Tool, tool.Tool) {
	s := &fakeSession{mode: m}
	ts := Tools(s, asker)
	return s, ts[0], ts[1]
}

const planArgs = `{"plan":"\n# Add a cache\n1. write cache.go\n2. go test ./...","allowed_prompts":["bash:go test .*","write_file"]}`

func (f *fakeAsker) TrustFolder(context.Context, face.TrustRequest) (bool, error) {
	panic("plan tools must not ask to trust a folder")
}
