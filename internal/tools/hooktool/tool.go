package hooktool

import (
	"context"
	_ "embed"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed register_hook.md
var description string

// Name is the tool's name.
const Name = "register_hook"

type args struct {
	Action  string `json:"action" jsonschema_description:"register a hook; list the hooks; remove a session hook; help prints the hook protocol."`
	Event   string `json:"event,omitempty" jsonschema:"enum=SessionStart,enum=UserPromptSubmit,enum=PreToolUse,enum=PostToolUse,enum=Stop,enum=SubagentStart,enum=SubagentStop,enum=PreCompact,enum=Notification,enum=SessionEnd" jsonschema_description:"The event (register and remove)."`
	Command string `json:"command,omitempty" jsonschema_description:"The shell command to run with bash -c (register)."`
	Index   int    `json:"index,omitempty" jsonschema:"minimum=1" jsonschema_description:"The hook's index as list shows it (remove)."`
	Timeout int    `json:"timeout,omitempty" jsonschema:"minimum=1,maximum=600" jsonschema_description:"Seconds before the hook is stopped (register; default 60)."`
}

// Tool returns register_hook over the session's hooks r. Its actions are a table:
// list and help only read, and are not asked for in default mode; register and
// remove change which commands run at the session's events, and are asked as exec.
// The tool stays exec, so plan mode and read-only agents do not have it.
func Tool(r *hook.Runner) tool.Tool {
	read, exec := tool.LevelRead, tool.LevelExec
	return tool.New(tool.Def[args]{
		Conversation: true,
		Name:         Name,
		Description:  strings.TrimSpace(description),
		Level:        tool.LevelExec,
		Kind:         tool.KindOther,
		Icon:         "🔗",
		Principal:    func(a args) string { return a.Action },
		Ops: &tool.Ops[args]{Arg: "action", List: []tool.Op[args]{
			{Name: "register", Level: exec,
				Check: func(a args) string {
					return needs(a, need{"event", a.Event != ""}, need{"command", strings.TrimSpace(a.Command) != ""})
				},
				Principal: func(a args) string { return a.Command },
				Run:       func(_ context.Context, _ tool.Env, a args) tool.Result { return register(r, a) }},
			{Name: "list", Level: read, Kind: tool.KindRead,
				Run: func(context.Context, tool.Env, args) tool.Result { return tool.Result{Text: list(r.List())} }},
			{Name: "remove", Level: exec,
				Check: func(a args) string { return needs(a, need{"event", a.Event != ""}, need{"index", a.Index > 0}) },
				Run:   func(_ context.Context, _ tool.Env, a args) tool.Result { return remove(r, a) }},
			{Name: "help", Level: read, Kind: tool.KindRead,
				Run: func(context.Context, tool.Env, args) tool.Result { return tool.Result{Text: hook.Help()} }},
		}},
	})
}

// need is an argument an action needs, and whether the call gave it.
type need struct {
	name  string
	given bool
}

// needs names, in one sentence, the arguments of ns the action lacks ("": none).
func needs(a args, ns ...need) string {
	var missing []string
	for _, n := range ns {
		if !n.given {
			missing = append(missing, fmt.Sprintf("%q", n.name))
		}
	}
	switch len(missing) {
	case 0:
		return ""
	case 1:
		return fmt.Sprintf("%s %s needs the argument %s, which is missing.", Name, a.Action, missing[0])
	default:
		return fmt.Sprintf("%s %s needs the arguments %s, which are missing.", Name, a.Action, strings.Join(missing, " and "))
	}
}

func register(r *hook.Runner, a args) tool.Result {
	n, err := r.Register(a.Event, a.Command, time.Duration(a.Timeout)*time.Second)
	if err != nil {
		return tool.Fail(fmt.Sprintf("The hook was not registered: %v.", err))
	}
	return tool.Result{Text: fmt.Sprintf("Registered hook %d for %s: %s", n, a.Event, a.Command)}
}

func remove(r *hook.Runner, a args) tool.Result {
	var command string
	for _, e := range r.List() {
		if e.Source == hook.SourceSession && e.Event == a.Event && e.Index == a.Index {
			command = e.Command
		}
	}
	if err := r.Remove(a.Event, a.Index); err != nil {
		return tool.Fail(fmt.Sprintf("Nothing was removed: %v.", err))
	}
	return tool.Result{Text: fmt.Sprintf("Removed hook %d for %s: %s", a.Index, a.Event, command)}
}

// list renders the hooks as a table.
func list(entries []hook.Entry) string {
	if len(entries) == 0 {
		return "No hooks are set. Add one with action register; action help explains the protocol."
	}
	var b strings.Builder
	w := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(w, "EVENT\tINDEX\tSOURCE\tMATCHER\tTIMEOUT\tON FAILURE\tCOMMAND")
	for _, e := range entries {
		index, matcher := "-", e.Matcher
		if e.Source == hook.SourceSession {
			index = fmt.Sprint(e.Index)
		}
		if matcher == "" {
			matcher = "*"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", e.Event, index, e.Source, matcher, e.Timeout, e.OnFailure, oneLine(e.What()))
	}
	_ = w.Flush()
	return strings.TrimRight(b.String(), "\n")
}

// oneLine keeps a multi-line command on its table row.
func oneLine(s string) string { return strings.NewReplacer("\n", "⏎", "\t", " ").Replace(s) }
