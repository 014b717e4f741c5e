package ask

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
)

// goOn is the instruction every unanswered outcome ends with.
const goOn = "Go on with your best assumption, state it in one sentence in your reply, and do not ask this again."

const passed = "The user passed on the question without answering. " + goOn

const noHuman = "Nobody can answer questions in this session (no human is attached), so ask_user cannot be used here. " + goOn +
	" Never write the question as a chat message instead: that ends the turn."

func timedOut(d time.Duration) string {
	return fmt.Sprintf("Nobody answered within %s. %s", human(d), goOn)
}

func failed(err error) string {
	return fmt.Sprintf("The question could not be shown to the user (%v). %s", err, goOn)
}

// answered gives each question with its answer: the chosen labels, or the typed text
// in quotes.
func answered(qs []face.Question, answers [][]string) string {
	var b strings.Builder
	b.WriteString("The user answered:")
	for i, q := range qs {
		var got []string
		if i < len(answers) {
			got = answers[i]
		}
		b.WriteString("\n")
		if len(qs) > 1 {
			fmt.Fprintf(&b, "%d. ", i+1)
		}
		if q.Header != "" {
			fmt.Fprintf(&b, "[%s] ", q.Header)
		}
		fmt.Fprintf(&b, "%s → %s", strings.TrimSpace(q.Question), answer(q, got))
	}
	return b.String()
}

// answer renders one question's answer.
func answer(q face.Question, got []string) string {
	var parts []string
	for _, a := range got {
		if a = strings.TrimSpace(a); a == "" {
			continue
		}
		if slices.ContainsFunc(q.Options, func(o face.Option) bool { return strings.TrimSpace(o.Label) == a }) {
			parts = append(parts, a)
		} else {
			parts = append(parts, fmt.Sprintf("%q (typed)", a))
		}
	}
	if len(parts) == 0 {
		return "(skipped: no answer; assume what is most sensible and say so)"
	}
	return strings.Join(parts, "; ")
}

// human writes a duration the way a person says it: "10 minutes", "30 seconds".
func human(d time.Duration) string {
	switch {
	case d >= time.Minute && d%time.Minute == 0:
		return plural(int(d/time.Minute), "minute")
	case d >= time.Second && d%time.Second == 0:
		return plural(int(d/time.Second), "second")
	default:
		return d.String()
	}
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}
