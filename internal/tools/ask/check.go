package ask

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits of the batch shape; the header limit is Claude Code's, so cards look alike.
const (
	maxQuestions   = 4
	minOptions     = 2
	maxOptions     = 4
	maxHeaderRunes = 12
)

// check accepts exactly one shape and returns one sentence naming the first bad field.
func check(a args) string {
	single := a.Question != "" || a.Context != "" || len(a.Options) > 0 || a.AllowFreeText || a.MultiSelect
	switch {
	case a.Questions != nil && single:
		return fmt.Sprintf("ask_user takes either one question (`question`…) or a batch (`questions`), not both: move %s into the entries of `questions` or drop `questions`.", singleField(a))
	case a.Questions != nil:
		return checkBatch(a.Questions)
	case !single:
		return "ask_user needs either `question` (one question) or `questions` (a batch of 1 to 4), and got neither."
	default:
		return checkSingle(a)
	}
}

// singleField names the first single-shape field that is set.
func singleField(a args) string {
	switch {
	case a.Question != "":
		return "`question`"
	case a.Context != "":
		return "`context`"
	case len(a.Options) > 0:
		return "`options`"
	case a.AllowFreeText:
		return "`allow_free_text`"
	default:
		return "`multi_select`"
	}
}

func checkSingle(a args) string {
	switch {
	case blank(a.Question):
		return "ask_user: `question` is empty; write the question to ask."
	case len(a.Options) == 0 && !a.AllowFreeText:
		return "ask_user: a question without `options` must set `allow_free_text` to true, or the user has no way to answer."
	case len(a.Options) == 0 && a.MultiSelect:
		return "ask_user: `multi_select` needs `options` to choose from."
	case len(a.Options) == 1 && !a.AllowFreeText:
		return "ask_user: `options` has a single choice and `allow_free_text` is false, so there is nothing to choose; give at least 2 options or allow free text."
	}
	return checkOptions("options", a.Options)
}

func checkBatch(qs []batchQuestion) string {
	if len(qs) == 0 || len(qs) > maxQuestions {
		return fmt.Sprintf("ask_user: `questions` must hold 1 to %d questions, not %d; ask the most important ones first.", maxQuestions, len(qs))
	}
	seen := map[string]int{}
	for i, q := range qs {
		field := fmt.Sprintf("questions[%d]", i)
		switch n := utf8.RuneCountInString(q.Header); {
		case blank(q.Header):
			return fmt.Sprintf("ask_user: `%s.header` is empty; give a short tag such as \"Database\".", field)
		case n > maxHeaderRunes:
			return fmt.Sprintf("ask_user: `%s.header` %q has %d characters, more than the %d that Claude Code allows; shorten it.", field, q.Header, n, maxHeaderRunes)
		case blank(q.Question):
			return fmt.Sprintf("ask_user: `%s.question` is empty; write the question to ask.", field)
		case len(q.Options) < minOptions || len(q.Options) > maxOptions:
			return fmt.Sprintf("ask_user: `%s.options` must hold %d to %d choices, not %d.", field, minOptions, maxOptions, len(q.Options))
		}
		if j, dup := seen[q.Question]; dup {
			return fmt.Sprintf("ask_user: `%s.question` repeats `questions[%d].question`; each question must be different.", field, j)
		}
		seen[q.Question] = i
		if msg := checkOptions(field+".options", q.Options); msg != "" {
			return msg
		}
	}
	return ""
}

// checkOptions requires non-empty, distinct labels.
func checkOptions(field string, opts []optionArg) string {
	seen := map[string]int{}
	for i, o := range opts {
		label := strings.TrimSpace(o.Label)
		if label == "" {
			return fmt.Sprintf("ask_user: `%s[%d].label` is empty; every option needs a label.", field, i)
		}
		if j, dup := seen[label]; dup {
			return fmt.Sprintf("ask_user: `%s[%d].label` %q repeats `%s[%d].label`; labels must be distinct.", field, i, o.Label, field, j)
		}
		seen[label] = i
	}
	return ""
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }
