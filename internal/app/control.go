package app

import (
	"context"
	"strings"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/ask"
	"github.com/gantry-dev/gantry/internal/tools/hooktool"
	"github.com/gantry-dev/gantry/internal/tools/plan"
)

// knownTools are the names gantry's tools have, declared in this run or not: a rule
// may name any of them (and any MCP tool, mcp__server__tool, or * for every tool).
var knownTools = map[string]bool{}

func init() {
	for _, n := range strings.Fields(`bash task_output task_kill read_skill read_file write_file
		edit_file apply_patch glob grep web_fetch web_search ask_user task todo_write todo_read
		enter_plan_mode exit_plan_mode compact agent vibe_spawn vibe_send vibe_wait vibe_kill
		vibe_list register_hook computer lsp lsp_rename ast_grep ast_edit resolve debug eval`) {
		knownTools[n] = true
	}
}

func isKnownTool(name string) bool {
	return knownTools[name] || name == "*" || strings.HasPrefix(name, "mcp__")
}

// hooks adapts the hook runner to what the loop needs.
type hooks struct{ r *hook.Runner }

func (h hooks) Has(event string) bool { return h.r.Has(event) }

func (h hooks) Run(ctx context.Context, event, toolName string, fields map[string]any) agent.HookResult {
	o := h.r.Run(ctx, event, toolName, fields)
	return agent.HookResult{Block: o.Block, Reason: o.Reason, Context: o.AdditionalContext,
		UpdatedInput: o.UpdatedInput, Allow: o.Allow, Warnings: o.Warnings}
}

// newGate builds the permission engine: the rules files (project and user), the
// config file's permissions, then the flags.
func newGate(cfg *config.Config, mode permission.Mode, flagAllow, flagDeny []string) (*permission.Engine, error) {
	rules, err := permission.LoadRules(cfg.Root(), config.UserDir())
	if err != nil {
		return nil, err
	}
	if err := rules.Check(isKnownTool); err != nil {
		return nil, err
	}
	rules.AllowAll = rules.AllowAll || cfg.Permissions.AllowAll
	allow := append(append([]string(nil), cfg.Permissions.Allow...), flagAllow...)
	deny := append(append([]string(nil), cfg.Permissions.Deny...), flagDeny...)
	return permission.NewEngineFromRules(mode, rules, allow, deny)
}

// addControlTools declares ask_user, the plan-mode tools and register_hook.
func addControlTools(reg *tool.Registry, gate *permission.Engine, asker face.Asker, runner *hook.Runner) {
	reg.Add(ask.Tool(asker, 0))
	for _, t := range plan.Tools(gate, asker) {
		reg.Add(t)
	}
	reg.Add(hooktool.Tool(runner))
}

// sessionStart runs the SessionStart hooks; what they add for the model goes into
// the system prompt.
func (a *App) sessionStart(sink face.Sink) string {
	if !a.Hooks.Has(hook.SessionStart) {
		return ""
	}
	source := "startup"
	if a.Resumed {
		source = "resume"
	}
	o := a.Hooks.Run(context.Background(), hook.SessionStart, source, map[string]any{"source": source})
	for _, w := range o.Warnings {
		sink(face.Notice{Text: "SessionStart hook: " + w})
	}
	if o.AdditionalContext == "" {
		return ""
	}
	return "\n<session-start-hooks>\n" + o.AdditionalContext + "\n</session-start-hooks>\n"
}
