package ask

import (
	"context"
	_ "embed"
	"errors"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed ask_user.md
var description string

// DefaultTimeout is how long ask_user waits for an answer when Tool is given 0.
const DefaultTimeout = 10 * time.Minute

// optionArg is one choice of a question.
type optionArg struct {
	Label       string `json:"label" jsonschema_description:"What the user picks: a few words."`
	Description string `json:"description,omitempty" jsonschema_description:"What choosing it means or implies."`
}

// batchQuestion is one entry of the batch shape.
type batchQuestion struct {
	Header      string      `json:"header" jsonschema_description:"A short tag shown beside the question: at most 12 characters."`
	Question    string      `json:"question" jsonschema_description:"The whole question ending with a question mark."`
	Options     []optionArg `json:"options" jsonschema_description:"2 to 4 distinct choices; the user may also type an answer."`
	MultiSelect bool        `json:"multi_select,omitempty" jsonschema_description:"Let the user choose several options."`
}

// args holds both shapes; Check accepts exactly one of them.
type args struct {
	Question      string          `json:"question,omitempty" jsonschema_description:"Single shape: the question to ask."`
	Context       string          `json:"context,omitempty" jsonschema_description:"Single shape: why you ask and what depends on the answer."`
	Options       []optionArg     `json:"options,omitempty" jsonschema_description:"Single shape: the choices with distinct labels."`
	AllowFreeText bool            `json:"allow_free_text,omitempty" jsonschema_description:"Single shape: accept a typed answer (required when there are no options)."`
	MultiSelect   bool            `json:"multi_select,omitempty" jsonschema_description:"Single shape: let the user choose several options."`
	Questions     []batchQuestion `json:"questions,omitempty" jsonschema_description:"Batch shape: 1 to 4 multiple-choice questions asked together."`
}

// Tool returns ask_user, which asks through asker and waits at most timeout for an
// answer (DefaultTimeout when timeout is 0).
func Tool(asker face.Asker, timeout time.Duration) tool.Tool {
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	return tool.New(tool.Def[args]{
		Conversation: true,
		Name:         "ask_user",
		Aliases:      []string{"AskUserQuestion"},
		Description:  description,
		Level:        tool.LevelRead,
		Kind:         tool.KindOther,
		Icon:         "❓",
		Principal:    principal,
		Check:        check,
		Run: func(ctx context.Context, _ tool.Env, a args) tool.Result {
			return run(ctx, asker, timeout, questions(a))
		},
	})
}

// principal is the question, or the first question of a batch.
func principal(a args) string {
	if len(a.Questions) > 0 {
		return a.Questions[0].Question
	}
	return a.Question
}

// questions turns either shape into the questions the face shows. A batch question
// always accepts a typed answer, as Claude Code's "Other" does.
func questions(a args) []face.Question {
	if len(a.Questions) == 0 {
		return []face.Question{{
			Question:      a.Question,
			Context:       a.Context,
			Options:       options(a.Options),
			AllowFreeText: a.AllowFreeText,
			MultiSelect:   a.MultiSelect,
		}}
	}
	qs := make([]face.Question, len(a.Questions))
	for i, q := range a.Questions {
		qs[i] = face.Question{
			Header:        q.Header,
			Question:      q.Question,
			Options:       options(q.Options),
			AllowFreeText: true,
			MultiSelect:   q.MultiSelect,
		}
	}
	return qs
}

func options(opts []optionArg) []face.Option {
	if len(opts) == 0 {
		return nil
	}
	out := make([]face.Option, len(opts))
	for i, o := range opts {
		out[i] = face.Option{Label: o.Label, Description: o.Description}
	}
	return out
}

// run asks and turns every outcome into a result for the model.
func run(ctx context.Context, asker face.Asker, timeout time.Duration, qs []face.Question) tool.Result {
	tctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ans, err := asker.AskUser(tctx, qs)
	switch {
	case err == nil && ans.Passed:
		return tool.Result{Text: passed}
	case err == nil:
		return tool.Result{Text: answered(qs, ans.Answers)}
	case errors.Is(err, face.ErrNoHuman):
		return tool.Fail(noHuman)
	case ctx.Err() != nil:
		return tool.Fail("cancelled")
	case errors.Is(err, context.DeadlineExceeded) || tctx.Err() != nil:
		return tool.Fail(timedOut(timeout))
	default:
		return tool.Fail(failed(err))
	}
}
