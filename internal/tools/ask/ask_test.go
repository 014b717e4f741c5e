package ask

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

const single = `{"question":"Which database?","context":"the schema depends on it","options":[{"label":"Postgres","description":"the server"},{"label":"SQLite"}],"allow_free_text":true}`

const batch = `{"questions":[
	{"header":"Database","question":"Which database?","options":[{"label":"Postgres"},{"label":"SQLite"}]},
	{"header":"Features","question":"Which features?","options":[{"label":"Auth"},{"label":"Search"},{"label":"Export"}],"multi_select":true}]}`

func TestDeclaration(t *testing.T) {
	tl := Tool(face.NoHuman{}, 0)
	if tl.Name() != "ask_user" || tl.Level() != tool.LevelRead || tl.Kind() != tool.KindOther {
		t.Fatalf("ask_user is %s, level %s, kind %s", tl.Name(), tl.Level(), tl.Kind())
	}
	spec := tl.Spec()
	if !strings.Contains(spec.Description, "never write a question as a chat message") {
		t.Errorf("the description must forbid asking in plain text: %q", spec.Description)
	}
	for _, field := range []string{"question", "context", "options", "allow_free_text", "multi_select", "questions", "header", "label", "description"} {
		if !strings.Contains(string(spec.Schema), `"`+field+`"`) {
			t.Errorf("the schema lacks %q: %s", field, spec.Schema)
		}
	}
}

func TestPrincipalIsTheFirstQuestion(t *testing.T) {
	for args, want := range map[string]string{single: "Which database?", batch: "Which database?"} {
		inv, msg := decode(answering(), 0, args)
		if msg != "" || inv.Principal != want {
			t.Errorf("principal = %q (%s), want %q", inv.Principal, msg, want)
		}
	}
}

func TestSingleQuestionReachesTheFace(t *testing.T) {
	f := answering([]string{"SQLite"})
	r := call(t, context.Background(), f, 0, single)
	want := face.Question{
		Question: "Which database?", Context: "the schema depends on it",
		Options:       []face.Option{{Label: "Postgres", Description: "the server"}, {Label: "SQLite"}},
		AllowFreeText: true,
	}
	if len(f.asked) != 1 || f.asked[0].Question != want.Question || f.asked[0].Context != want.Context ||
		len(f.asked[0].Options) != 2 || f.asked[0].Options[0] != want.Options[0] || !f.asked[0].AllowFreeText || f.asked[0].MultiSelect {
		t.Fatalf("asked %+v, want %+v", f.asked, want)
	}
	if r.IsError || r.Text != "The user answered:\nWhich database? → SQLite" {
		t.Fatalf("result = %+v", r)
	}
}

func TestMultiSelectAnswer(t *testing.T) {
	args := `{"question":"Which checks?","options":[{"label":"vet"},{"label":"lint"},{"label":"race"}],"multi_select":true}`
	f := answering([]string{"vet", "race"})
	r := call(t, context.Background(), f, 0, args)
	if !f.asked[0].MultiSelect || f.asked[0].AllowFreeText {
		t.Errorf("asked %+v", f.asked[0])
	}
	if r.IsError || !strings.HasSuffix(r.Text, "Which checks? → vet; race") {
		t.Fatalf("result = %+v", r)
	}
}

func TestFreeTextAnswer(t *testing.T) {
	r := call(t, context.Background(), answering([]string{"call it gantry"}), 0, `{"question":"Name?","allow_free_text":true}`)
	if r.IsError || !strings.HasSuffix(r.Text, `Name? → "call it gantry" (typed)`) {
		t.Fatalf("result = %+v", r)
	}
}

func TestBatchAnswer(t *testing.T) {
	f := answering([]string{"Postgres"}, []string{"Auth", "bulk import"})
	r := call(t, context.Background(), f, 0, batch)
	if len(f.asked) != 2 || f.asked[0].Header != "Database" || f.asked[1].Header != "Features" ||
		!f.asked[1].MultiSelect || f.asked[0].MultiSelect || !f.asked[0].AllowFreeText {
		t.Fatalf("asked %+v", f.asked)
	}
	want := "The user answered:\n1. [Database] Which database? → Postgres\n2. [Features] Which features? → Auth; \"bulk import\" (typed)"
	if r.IsError || r.Text != want {
		t.Fatalf("result = %q, want %q", r.Text, want)
	}
}

func TestMissingAnswerSaysSo(t *testing.T) {
	r := call(t, context.Background(), answering([]string{"Postgres"}), 0, batch)
	if r.IsError || !strings.Contains(r.Text, "Which features? → (skipped: no answer; assume") {
		t.Fatalf("result = %+v", r)
	}
}

func TestPass(t *testing.T) {
	f := &fakeAsker{answer: func(context.Context, []face.Question) (face.UserAnswer, error) {
		return face.UserAnswer{Passed: true}, nil
	}}
	r := call(t, context.Background(), f, 0, single)
	if r.IsError || !strings.Contains(r.Text, "passed") || !strings.Contains(r.Text, "assumption") || !strings.Contains(r.Text, "do not ask this again") {
		t.Fatalf("a pass must be a success telling the model to go on: %+v", r)
	}
}

func TestTimeout(t *testing.T) {
	start := time.Now()
	r := call(t, context.Background(), blocking(), 30*time.Millisecond, single)
	if time.Since(start) > 5*time.Second {
		t.Fatal("ask_user did not stop waiting at its timeout")
	}
	if !r.IsError || !strings.Contains(r.Text, "Nobody answered within 30ms") || !strings.Contains(r.Text, "do not ask this again") {
		t.Fatalf("a timeout must be an error with the same instruction: %+v", r)
	}
}

func TestDefaultTimeout(t *testing.T) {
	f := answering([]string{"SQLite"})
	call(t, context.Background(), f, 0, single)
	if left := time.Until(f.deadline); left < 9*time.Minute || left > DefaultTimeout {
		t.Fatalf("the default timeout leaves %v, want about %v", left, DefaultTimeout)
	}
	if got := timedOut(DefaultTimeout); !strings.Contains(got, "within 10 minutes") {
		t.Errorf("timeout text = %q", got)
	}
}

func TestNoHumanFailsAtOnce(t *testing.T) {
	start := time.Now()
	r := call(t, context.Background(), face.NoHuman{}, time.Hour, batch)
	if time.Since(start) > time.Second {
		t.Fatal("with no human ask_user must not wait")
	}
	for _, want := range []string{"Nobody can answer", "assumption", "do not ask this again", "Never write the question as a chat message"} {
		if !r.IsError || !strings.Contains(r.Text, want) {
			t.Fatalf("result %+v lacks %q", r, want)
		}
	}
}

func TestCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	f := &fakeAsker{answer: func(actx context.Context, _ []face.Question) (face.UserAnswer, error) {
		cancel() // the user presses Esc while the card is shown
		<-actx.Done()
		return face.UserAnswer{}, actx.Err()
	}}
	r := call(t, ctx, f, time.Hour, single)
	if !r.IsError || r.Text != "cancelled" {
		t.Fatalf("result = %+v, want the error \"cancelled\"", r)
	}
}

func TestFaceFault(t *testing.T) {
	f := &fakeAsker{answer: func(context.Context, []face.Question) (face.UserAnswer, error) {
		return face.UserAnswer{}, errors.New("terminal closed")
	}}
	r := call(t, context.Background(), f, 0, single)
	if !r.IsError || !strings.Contains(r.Text, "terminal closed") || !strings.Contains(r.Text, "assumption") {
		t.Fatalf("result = %+v", r)
	}
}

func TestHuman(t *testing.T) {
	for d, want := range map[time.Duration]string{
		time.Minute: "1 minute", 10 * time.Minute: "10 minutes", 90 * time.Second: "90 seconds",
		time.Second: "1 second", 1500 * time.Millisecond: "1.5s",
	} {
		if got := human(d); got != want {
			t.Errorf("human(%v) = %q, want %q", d, got, want)
		}
	}
}
