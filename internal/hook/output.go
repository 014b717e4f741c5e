package hook

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// output is the JSON a hook may print on stdout when it exits 0: gantry's flat fields
// and Claude Code's (continue, stopReason, hookSpecificOutput).
type output struct {
	Continue           *bool           `json:"continue"`
	StopReason         string          `json:"stopReason"`
	Decision           string          `json:"decision"`
	Reason             string          `json:"reason"`
	AdditionalContext  string          `json:"additionalContext"`
	UpdatedInput       json.RawMessage `json:"updatedInput"`
	HookSpecificOutput *specificOutput `json:"hookSpecificOutput"`
	// SystemMessage is shown to the person (not the model); SuppressOutput keeps
	// the hook's stdout out of what is shown.
	SystemMessage  string `json:"systemMessage"`
	SuppressOutput bool   `json:"suppressOutput"`
}

// specificOutput is Claude Code's hookSpecificOutput.
type specificOutput struct {
	PermissionDecision       string          `json:"permissionDecision"`
	PermissionDecisionReason string          `json:"permissionDecisionReason"`
	AdditionalContext        string          `json:"additionalContext"`
	UpdatedInput             json.RawMessage `json:"updatedInput"`
}

// readOutput reads the stdout of a hook that exited 0. A JSON object carries decisions;
// other text is context on the events where Claude Code takes it so, and ignored on
// the others.
func readOutput(event string, s *spec, stdout string, truncated bool) verdict {
	text := strings.TrimSpace(stdout)
	if !strings.HasPrefix(text, "{") {
		if contextFromPlainStdout(event) {
			return verdict{context: text}
		}
		return verdict{}
	}
	var out output
	if err := json.Unmarshal([]byte(text), &out); err != nil {
		msg := fmt.Sprintf("The %s printed JSON that could not be read (%v)", s.label(), err)
		if truncated {
			msg += fmt.Sprintf("; only its first %d KiB were kept", maxCapture>>10)
		}
		return s.failed(msg + ".")
	}
	return out.verdict(event, s)
}

// verdict interprets a parsed output.
func (out *output) verdict(event string, s *spec) verdict {
	var v verdict
	var denyReason string
	sp := out.HookSpecificOutput
	if sp == nil {
		sp = &specificOutput{}
	}
	switch strings.ToLower(out.Decision) {
	case "block", "deny":
		v.block = true
	case "approve", "allow":
		v.allow = true
	case "", "ask", "defer":
	default:
		v.warning = fmt.Sprintf("The %s answered the unknown decision %q, which was ignored; the decisions are block and approve.", s.label(), out.Decision)
	}
	switch strings.ToLower(sp.PermissionDecision) {
	case "deny":
		v.block, denyReason = true, sp.PermissionDecisionReason
	case "allow":
		v.allow = true
	case "ask":
		v.ask = event == PreToolUse
		v.askReason = sp.PermissionDecisionReason
	case "", "defer":
	default:
		if v.warning == "" {
			v.warning = fmt.Sprintf("The %s answered the unknown permissionDecision %q, which was ignored; the decisions are allow, deny and ask.", s.label(), sp.PermissionDecision)
		}
	}
	if out.Continue != nil && !*out.Continue {
		// Claude Code: the turn ends; stopReason is for the person.
		v.block, v.stop = true, true
		v.stopReason = firstNonEmpty(out.StopReason, fmt.Sprintf("the %s said not to continue", s.label()))
	}
	v.message = strings.TrimSpace(out.SystemMessage)
	if v.block {
		v.allow = false
		v.reason = firstNonEmpty(denyReason, out.Reason, out.StopReason,
			fmt.Sprintf("The %s blocked this without giving a reason.", s.label()))
	}
	v.context = strings.TrimSpace(out.AdditionalContext + "\n" + sp.AdditionalContext)
	if event == PreToolUse {
		in := sp.UpdatedInput
		if len(in) == 0 || string(in) == "null" {
			in = out.UpdatedInput
		}
		in = bytes.TrimSpace(in)
		switch {
		case len(in) == 0 || string(in) == "null":
		case in[0] == '{':
			v.input = in
		case v.warning == "":
			v.warning = fmt.Sprintf("The %s gave an updatedInput that is not a JSON object; it was ignored.", s.label())
		}
	}
	return v
}

func firstNonEmpty(ss ...string) string {
	for _, s := range ss {
		if s = strings.TrimSpace(s); s != "" {
			return s
		}
	}
	return ""
}
