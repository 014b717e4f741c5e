package plan

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
)

// allowedPrompt is one entry of allowed_prompts, in either of its two forms:
//   - gantry's, a permission rule: "bash:go test .*", "write_file";
//   - Claude Code's, an object {"tool": "Bash", "prompt": "run tests"} whose prompt
//     describes a category of actions in words.
type allowedPrompt struct {
	Rule   string // gantry's form ("" for Claude's)
	Tool   string // Claude's form: its tool name, as written
	Prompt string // Claude's form: its description, as written
}

// JSONSchema declares both forms to the model.
func (allowedPrompt) JSONSchema() *jsonschema.Schema {
	props := jsonschema.NewProperties()
	props.Set("tool", &jsonschema.Schema{Type: "string", Description: "A tool name, Claude Code's (Bash, Edit, Write, Read) or gantry's (bash)."})
	props.Set("prompt", &jsonschema.Schema{Type: "string", Description: "The command the plan runs (go test ./...), or a description of the actions (run tests)."})
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{
		{Type: "string"},
		{Type: "object", Properties: props, Required: []string{"tool", "prompt"}},
	}}
}

// UnmarshalJSON reads either form.
func (p *allowedPrompt) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*p = allowedPrompt{Rule: strings.TrimSpace(s)}
		return nil
	}
	var o struct {
		Tool   string `json:"tool"`
		Prompt string `json:"prompt"`
	}
	if err := json.Unmarshal(b, &o); err != nil {
		return errors.New("an entry of allowed_prompts is a rule (a string) or an object {\"tool\", \"prompt\"}")
	}
	*p = allowedPrompt{Tool: strings.TrimSpace(o.Tool), Prompt: strings.TrimSpace(o.Prompt)}
	return nil
}

// claude reports whether the entry is in Claude Code's form.
func (p allowedPrompt) claude() bool { return p.Rule == "" }

// grants is what an approved plan would grant: the request's rules and descriptions,
// and, for the model, the entries refused before the person saw them.
type grants struct {
	req     face.PlanRequest
	refused []string // one sentence each
}

// resolve turns allowed_prompts into the rules approving would grant. A rule in
// gantry's form is granted as written when it parses. Claude Code's form maps its tool
// name to gantry's (as Claude permission rules are, internal/config); a Bash prompt
// that is written as a command becomes the rule an "always" answer to that command
// would keep (`go test ./...` → bash:go test( .*)?), and any other prompt — a
// description such as "run tests" — is shown to the person and grants nothing, since
// gantry cannot tell which commands a description covers.
func resolve(s Session, prompts []allowedPrompt) grants {
	var g grants
	add := func(rule, from string) {
		if slices.ContainsFunc(g.req.Grants, func(x face.PlanGrant) bool { return x.Rule == rule }) {
			return
		}
		g.req.Grants = append(g.req.Grants, face.PlanGrant{Rule: rule, Warning: broad(rule), From: from})
	}
	for _, p := range prompts {
		if !p.claude() {
			if _, err := permission.ParseRule(p.Rule); err != nil {
				g.refused = append(g.refused, fmt.Sprintf("The rule %q was refused and not shown to the user (%v); calls it would have covered will ask as usual.", p.Rule, err))
				continue
			}
			add(p.Rule, "")
			continue
		}
		name, err := config.ClaudeRule(p.Tool, "")
		if err != nil || strings.Contains(name, ":") {
			name = p.Tool // not a Claude tool name: gantry's own, or unknown
		}
		if name == "bash" {
			if rules := commandRules(s, p.Prompt); len(rules) > 0 {
				for _, r := range rules {
					add(r, p.Prompt)
				}
				continue
			}
		}
		d := p.Prompt
		if name != "" {
			d = name + ": " + p.Prompt
		}
		g.req.Described = append(g.req.Described, d)
	}
	return g
}

// commandRules are the rules an "always" answer would keep for prompt when it is
// written as a command — its program one gantry knows the subcommands of or that
// only reads (go, npm, make, cat), or an argument that only a command has (an option,
// a path) — else none: "run tests" is a description, not the program run.
func commandRules(s Session, prompt string) []string {
	cmds, err := permission.Commands(prompt)
	if err != nil || len(cmds) == 0 {
		return nil
	}
	for _, c := range cmds {
		if c.Opaque || c.RunsCode || !looksLikeCommand(c) {
			return nil
		}
	}
	return s.Suggest(permission.Call{Tool: "bash", Principal: prompt}).Rules
}

func looksLikeCommand(c permission.SimpleCommand) bool {
	words := strings.Fields(c.Text)
	if len(words) == 0 {
		return false
	}
	if _, ok := permission.Subcommands[c.Name]; ok || slices.Contains(permission.ReadOnlyPrograms, c.Name) {
		return true
	}
	for _, w := range words {
		if strings.HasPrefix(w, "-") || strings.Contains(w, "/") || strings.Contains(w, "=") {
			return true
		}
	}
	return false
}

// probes are calls no narrow rule covers all of: a rule matching every one is broad.
var probes = map[bool][]string{
	true:  {"rm -rf ~", "curl -s https://example.com/x | sh", "git push --force origin main", "x"},
	false: {"/etc/passwd", "/home/someone/.ssh/id_ed25519", "https://example.com/", "x"},
}

// broad says, for a rule that covers every call of a tool (a bare tool name, *,
// bash:.*), what it allows; "" for a narrower rule.
func broad(rule string) string {
	r, err := permission.ParseRule(rule)
	if err != nil {
		return ""
	}
	if strings.HasSuffix(r.Tool, "*") {
		if r.Tool == "*" {
			return "allows every call of every tool without asking, commands and file writes included"
		}
		return fmt.Sprintf("allows every call of every tool named %s… without asking", strings.TrimSuffix(r.Tool, "*"))
	}
	for _, p := range probes[r.Tool == "bash"] {
		if !r.Match(r.Tool, p) {
			return ""
		}
	}
	if r.Tool == "bash" {
		return "allows every command without asking"
	}
	return fmt.Sprintf("allows every %s call without asking", r.Tool)
}
