package ask

import (
	"strings"
	"testing"
)

func TestShapeAndValidationErrors(t *testing.T) {
	batch := func(entries ...string) string { return `{"questions":[` + strings.Join(entries, ",") + `]}` }
	const ab = `[{"label":"a"},{"label":"b"}]`
	entry := func(header, question, options string) string {
		return `{"header":"` + header + `","question":"` + question + `","options":` + options + `}`
	}
	cases := []struct {
		name, args, want string
	}{
		{"neither shape", `{}`, "got neither"},
		{"both shapes", `{"question":"q?","questions":[]}`, "not both: move `question`"},
		{"batch with top-level options", `{"options":[{"label":"a"}],"questions":[]}`, "move `options`"},
		{"batch with top-level multi_select", `{"multi_select":true,"questions":[]}`, "move `multi_select`"},
		{"empty batch", `{"questions":[]}`, "`questions` must hold 1 to 4 questions, not 0"},
		{"five questions", batch(entry("A", "a?", ab), entry("B", "b?", ab), entry("C", "c?", ab), entry("D", "d?", ab), entry("E", "e?", ab)), "not 5"},
		{"empty header", batch(entry(" ", "a?", ab)), "`questions[0].header` is empty"},
		{"long header", batch(entry("A", "a?", ab), entry("Thirteen char", "b?", ab)), "`questions[1].header` \"Thirteen char\" has 13 characters, more than the 12 that Claude Code allows"},
		{"missing header", `{"questions":[{"question":"a?","options":` + ab + `}]}`, `"questions[0].header"`},
		{"empty batch question", batch(entry("A", "", ab)), "`questions[0].question` is empty"},
		{"one batch option", batch(entry("A", "a?", `[{"label":"a"}]`)), "`questions[0].options` must hold 2 to 4 choices, not 1"},
		{"five batch options", batch(entry("A", "a?", `[{"label":"a"},{"label":"b"},{"label":"c"},{"label":"d"},{"label":"e"}]`)), "not 5"},
		{"repeated batch question", batch(entry("A", "a?", ab), entry("B", "a?", ab)), "`questions[1].question` repeats `questions[0].question`"},
		{"empty batch label", batch(entry("A", "a?", `[{"label":"a"},{"label":""}]`)), "`questions[0].options[1].label` is empty"},
		{"repeated batch label", batch(entry("A", "a?", `[{"label":"a"},{"label":" a"}]`)), "`questions[0].options[1].label` \" a\" repeats `questions[0].options[0].label`"},
		{"string options (003 seed form)", batch(entry("A", "a?", `["a","b"]`)), `"questions[0].options[0]" must be an object`},
		{"empty single question", `{"question":"  ","allow_free_text":true}`, "`question` is empty"},
		{"context without question", `{"context":"why"}`, "`question` is empty"},
		{"no options and no free text", `{"question":"q?"}`, "without `options` must set `allow_free_text`"},
		{"multi_select without options", `{"question":"q?","allow_free_text":true,"multi_select":true}`, "`multi_select` needs `options`"},
		{"one option and no free text", `{"question":"q?","options":[{"label":"a"}]}`, "single choice"},
		{"empty single label", `{"question":"q?","options":[{"label":"a"},{"label":" "}]}`, "`options[1].label` is empty"},
		{"repeated single label", `{"question":"q?","options":[{"label":"a"},{"label":"b"},{"label":"a"}]}`, "`options[2].label` \"a\" repeats `options[0].label`"},
		{"label of the wrong type", `{"question":"q?","options":[{"label":3}]}`, `"options[0].label" must be a string`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, msg := decode(answering(), 0, c.args)
			if !strings.Contains(msg, c.want) {
				t.Fatalf("refusal = %q, want it to contain %q", msg, c.want)
			}
			if strings.Contains(msg, "\n") || strings.Count(strings.TrimSuffix(msg, "."), ". ") > 0 {
				t.Errorf("refusal is not one sentence: %q", msg)
			}
		})
	}
}

func TestValidShapes(t *testing.T) {
	for _, args := range []string{
		`{"question":"Name?","allow_free_text":true}`,
		`{"question":"Which?","options":[{"label":"a"},{"label":"b","description":"the other"}]}`,
		`{"question":"Which?","options":[{"label":"a"}],"allow_free_text":true}`,
		`{"question":"Which?","options":[{"label":"a"},{"label":"b"}],"multi_select":true}`,
		`{"questions":[{"header":"Twelve chars","question":"a?","options":[{"label":"x"},{"label":"y"}]}]}`,
		`{"questions":[{"header":"Base","question":"a?","options":[{"label":"x"},{"label":"y"},{"label":"z"},{"label":"w"}],"multi_select":true},{"header":"Ö","question":"b?","options":[{"label":"x"},{"label":"y"}]}]}`,
		`{"question":"Name?","allow_free_text":true,"questions":null}`,
	} {
		if _, msg := decode(answering(), 0, args); msg != "" {
			t.Errorf("%s refused: %s", args, msg)
		}
	}
}
