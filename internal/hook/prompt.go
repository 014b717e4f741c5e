package hook

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Model asks the session's model one question, with no tools, and returns the text of
// its answer: system holds the instructions, prompt the question. Prompt hooks use it.
type Model func(ctx context.Context, system, prompt string) (string, error)

// promptSystem tells the model how to judge for a prompt hook.
const promptSystem = `You decide for a hook of a coding agent's session: the user wrote a condition, and
the agent is at an event of its session, given as JSON (the event's name, the tool and
its input, the prompt, the last message, and so on). Judge whether the event may go on
under the user's condition. Answer with one JSON object and nothing else — no prose, no
code fence:
{"ok": true} when it may go on;
{"ok": false, "reason": "…"} when it must not, the reason written for the agent, which
reads it.`

// arguments is the placeholder of a prompt for the event's input, as in Claude Code.
const arguments = "$ARGUMENTS"

// promptText is the question for hook s: its prompt with $ARGUMENTS replaced by the
// input JSON, or followed by it when the prompt does not say where.
func promptText(prompt string, input []byte) string {
	if strings.Contains(prompt, arguments) {
		return strings.ReplaceAll(prompt, arguments, string(input))
	}
	return strings.TrimRight(prompt, "\n") + "\n\n" + string(input)
}

// ask runs prompt hook s of event: one request to the model, bounded by the hook's
// timeout, read as the JSON a command hook prints or as {"ok": …, "reason": …}. A model
// that fails, does not answer in time or answers no JSON object is a failed hook.
func (r *Runner) ask(ctx context.Context, event string, s *spec, input []byte) verdict {
	if r.base.Model == nil {
		return s.failed(fmt.Sprintf("The %s did not run: this session has no model to ask.", s.label()))
	}
	tctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	answer, err := r.base.Model(tctx, promptSystem, promptText(s.prompt, input))
	switch {
	case ctx.Err() != nil:
		return verdict{block: true, reason: fmt.Sprintf("The %s was stopped before it finished: the call was cancelled.", s.label())}
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || tctx.Err() != nil):
		return s.failed(fmt.Sprintf("The %s had no answer from the model within its timeout of %s.", s.label(), s.timeout))
	case err != nil:
		return s.failed(fmt.Sprintf("The %s failed: the model could not be asked (%v).", s.label(), err))
	}
	return readAnswer(event, s, answer)
}

// readAnswer reads the model's answer for prompt hook s: a JSON object, possibly in a
// code fence or after a sentence. {"ok": false} blocks with its reason; {"ok": true}
// lets the event go on; without "ok" the object is read as a command hook's output.
func readAnswer(event string, s *spec, answer string) verdict {
	obj, ok := jsonObject(answer)
	if !ok {
		return s.failed(fmt.Sprintf("The %s: the model answered no JSON object (%q).", s.label(), shorten(strings.TrimSpace(answer))))
	}
	var verdictOf struct {
		OK     *bool  `json:"ok"`
		Reason string `json:"reason"`
	}
	if err := json.Unmarshal([]byte(obj), &verdictOf); err != nil {
		return s.failed(fmt.Sprintf("The %s: the model's answer could not be read (%v).", s.label(), err))
	}
	switch {
	case verdictOf.OK == nil:
		return readOutput(event, s, obj, false)
	case *verdictOf.OK:
		return verdict{}
	default:
		return verdict{block: true, reason: firstNonEmpty(verdictOf.Reason, fmt.Sprintf("The %s blocked this without giving a reason.", s.label()))}
	}
}

// jsonObject finds the JSON object of a model's answer: the text from its first "{" to
// its last "}", when that is valid JSON.
func jsonObject(answer string) (string, bool) {
	i, j := strings.IndexByte(answer, '{'), strings.LastIndexByte(answer, '}')
	if i < 0 || j < i {
		return "", false
	}
	obj := answer[i : j+1]
	return obj, json.Valid([]byte(obj))
}
