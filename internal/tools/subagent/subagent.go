// Package subagent is the agent tool: it hands a self-contained piece of work to a
// subagent with a fresh context, in the foreground (its final message is the result)
// or in the background (a task_id for task_output).
package subagent

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Name is the tool's name; a subagent is given every tool but this one.
const Name = "agent"

// Request is what the parent asks of a subagent.
type Request struct {
	Prompt      string
	Description string
	// ReadOnly caps the subagent at read tools: its schema has no write or exec tool.
	ReadOnly bool
	// Agent names the definition to run (its prompt, tools and model); "" is none.
	Agent string
}

// Brief is what the tool's description says of an agent definition.
type Brief struct {
	Name, Description string
}

// Spawner runs a subagent to its final message; ctx ending cancels it.
type Spawner interface {
	Spawn(ctx context.Context, req Request) (string, error)
}

// Background runs work as a background task readable with task_output.
type Background interface {
	StartFunc(label string, fn func(ctx context.Context) (string, error)) (string, error)
}

type args struct {
	Prompt          string `json:"prompt" jsonschema_description:"The whole task for the subagent: it sees nothing of this conversation, so say what to do, where, and what to report back."`
	Description     string `json:"description,omitempty" jsonschema_description:"Three to five words naming the task, shown to the person."`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema_description:"Start it and return a task_id at once; read its answer with task_output."`
	ReadOnly        bool   `json:"read_only,omitempty" jsonschema_description:"Give it read tools only (for research and review)."`
	SubagentType    string `json:"subagent_type,omitempty" jsonschema_description:"An agent definition to run, by name; omit for a general one."`
}

//go:embed agent.md
var description string

// general is Claude Code's name for a subagent without a definition, accepted as none.
const general = "general-purpose"

// Tool returns the agent tool. bg may be nil: then run_in_background is refused. defs
// are the agent definitions it offers by name, listed in its description.
func Tool(s Spawner, bg Background, defs []Brief) tool.Tool {
	return tool.New(tool.Def[args]{
		Conversation: true,
		Core:         true,
		Name:         Name, Description: strings.TrimRight(description, "\n") + catalog(defs), Level: tool.LevelExec, Kind: tool.KindOther, Icon: "🤖",
		// Claude Code named the tool Task before v2.1.63 and Agent since; hooks read
		// Agent, and a Task matcher still selects the call.
		ClaudeNames: []string{"Agent", "Task"},
		Claude: func(_ tool.Env, a args) []tool.ClaudeView {
			return []tool.ClaudeView{{Name: "Agent", Formerly: []string{"Task"}, Input: map[string]any{"description": a.Description, "prompt": a.Prompt, "subagent_type": first(a.SubagentType, general)}}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) args {
			return args{Prompt: c.String("prompt"), Description: c.String("description"), SubagentType: c.String("subagent_type"), RunInBackground: c.Bool("run_in_background")}
		},
		// Rules match the definition a call runs (Claude Code's Agent(Explore)); the
		// person reads the call by its description.
		Principal: func(a args) string { return first(strings.TrimSpace(a.SubagentType), general) },
		Title:     func(_ tool.Env, a args, _ []string) string { return Name + ": " + label(a) },
		Check: func(a args) string {
			if strings.TrimSpace(a.Prompt) == "" {
				return "agent needs a non-empty prompt: the whole task for the subagent."
			}
			if n := len(strings.Fields(a.Description)); n > 12 {
				return fmt.Sprintf("agent: description should be three to five words, not %d.", n)
			}
			return unknown(defs, a.SubagentType)
		},
		Run: func(ctx context.Context, _ tool.Env, a args) tool.Result {
			req := Request{Prompt: a.Prompt, Description: label(a), ReadOnly: a.ReadOnly, Agent: a.SubagentType}
			if req.Agent == general {
				req.Agent = ""
			}
			if a.RunInBackground {
				if bg == nil {
					return tool.Fail("Background subagents are not available here; run it without run_in_background.")
				}
				id, err := bg.StartFunc("subagent: "+req.Description, func(ctx context.Context) (string, error) {
					return s.Spawn(ctx, req)
				})
				if err != nil {
					return tool.Fail(fmt.Sprintf("The subagent could not be started: %v.", err))
				}
				return tool.Result{Text: fmt.Sprintf("Started the subagent %q in the background (task_id %q). Read its answer with task_output {\"task_id\": %q}; stop it with task_kill.", req.Description, id, id)}
			}
			out, err := s.Spawn(ctx, req)
			if err != nil {
				if ctx.Err() != nil {
					return tool.Fail("[cancelled: the subagent was stopped before it finished]")
				}
				return tool.Fail(fmt.Sprintf("The subagent failed: %v.%s", err, partial(out)))
			}
			if strings.TrimSpace(out) == "" {
				out = "(the subagent finished without a final message)"
			}
			return tool.Result{Text: out}
		},
	})
}

func label(a args) string {
	if d := strings.TrimSpace(a.Description); d != "" {
		return d
	}
	words := strings.Fields(a.Prompt)
	if len(words) > 5 {
		words = words[:5]
	}
	return strings.Join(words, " ")
}

func partial(out string) string {
	if strings.TrimSpace(out) == "" {
		return ""
	}
	return " What it said before: " + out
}
