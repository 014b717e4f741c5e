package app

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/subagent"
)

// subagentNote is added to a subagent's system prompt.
const subagentNote = `
You are a subagent: another agent gave you the task below and will read only your final
message. Do the task with your tools, then answer with a final message that holds
everything the other agent needs (findings, paths, what you changed, what failed).`

// spawner runs subagents for the agent tool: each is an Agent with a fresh history,
// the session's provider, gate, asker and hooks, every tool but agent (read tools only
// when asked), its events shown as the subagent's, and its usage counted in the
// session's.
type spawner struct {
	app *App
	n   atomic.Int32
}

func (s *spawner) Spawn(ctx context.Context, req subagent.Request) (string, error) {
	parent := s.app.agent
	id := fmt.Sprintf("sub_%d", s.n.Add(1))
	readOnly := req.ReadOnly
	var def AgentDef
	if req.Agent != "" {
		var ok bool
		if def, ok = s.app.agentDef(req.Agent); !ok {
			return "", fmt.Errorf("there is no agent definition %q", req.Agent)
		}
	}
	// Its own eval kernels and debug session, in its conversation's pool, ended with
	// its run.
	tools := parent.Tools.Without(subagent.Name)
	held := s.app.ownTools(tools)
	defer func() {
		if err := held.Close(context.WithoutCancel(ctx)); err != nil {
			s.app.emit(face.Notice{Text: fmt.Sprintf("subagent %s (%s): its eval kernels or debug session did not close cleanly: %v", id, req.Description, err)})
		}
	}()
	// A definition's tools only (mapped from Claude Code's names), still capped by
	// the caller's level below.
	view := tools
	if hide := hiddenTools(def, tools); len(hide) > 0 {
		view = tools.Without(hide...)
	}
	sub := &agent.Agent{
		Provider: parent.Provider,
		Tools:    view,
		Gate:     parent.Gate,
		Asker:    parent.Asker,
		Hooks:    parent.Hooks,
		Env:      parent.Env,
		Outputs:  parent.Outputs,
		// A fresh conversation: the nested memory files it touches are given to it.
		Nested: config.NewNested(parent.Env.Cwd, s.app.memory),
		Sink: func(e face.Event) {
			if parent.Sink != nil {
				parent.Sink(face.FromSubagent{ID: id, Label: req.Description, Event: e})
			}
		},
		// Its changes are the parent turn's: the turn's checkpoint comes before them.
		BeforeChange: parent.NoteChange,
		MaxLevel: func() tool.Level {
			level := parent.MaxLevel()
			if readOnly && level > tool.LevelRead {
				level = tool.LevelRead
			}
			return level
		},
		Config: parent.Config,
	}
	sub.Config.System = parent.Config.System + subagentNote
	if def.Name != "" {
		// Its body is its instructions; its model is its own or the session's.
		sub.Config.System += "\n\n<agent-definition name=\"" + def.Name + "\">\n" + def.Prompt + "\n</agent-definition>\n"
		sub.Config.Model = agentModel(def.Model, s.app.provider, parent.Config.Model, s.app.cfg.Models)
		sub.Config.ContextWindow = contextWindow(s.app.cfg, sub.Config.Model)
	}
	if def.MaxTurns > 0 {
		sub.Config.MaxTurns = def.MaxTurns
	}
	if mode, dontAsk := agentMode(def.PermissionMode); mode != "" {
		sub.Gate = modeGate{Gate: parent.Gate, mode: mode, dontAsk: dontAsk, def: def.Name}
		if mode == permission.ModePlan {
			readOnly = true // its schema has read tools only, as plan mode's
		}
		if caller := s.app.gate.Mode(); permission.Stricter(caller, mode) != mode {
			s.app.emit(face.Notice{Info: true, Text: fmt.Sprintf("subagent %s (%s): its definition's permissionMode %s is capped at its caller's mode, %s", id, def.Name, def.PermissionMode, caller)})
		}
	}
	sub.Config.SaveRule = nil
	agentType := first(def.Name, "general-purpose")
	// SubagentStart hooks (matched on the agent's type, as Claude Code's): what they
	// add is the subagent's, in its instructions; a block stops it before it starts.
	if s.app.hooks.Has(hook.SubagentStart) {
		o := s.app.hooks.Run(ctx, hook.SubagentStart, agentType, map[string]any{
			"agent_id": id, "agent_type": agentType, "description": req.Description})
		for _, w := range o.Warnings {
			s.app.emit(face.Notice{Text: "SubagentStart hook: " + w})
		}
		if o.Block {
			return "", fmt.Errorf("a SubagentStart hook stopped it: %s", first(o.Reason, "no reason given"))
		}
		if c := strings.TrimSpace(o.AdditionalContext); c != "" {
			sub.Config.System += "\n\n<subagent-start-hook>\n" + c + "\n</subagent-start-hook>\n"
		}
	}
	end := sub.Run(ctx, req.Prompt)
	u, cost := sub.Usage()
	parent.AddUsage(u, cost)
	if s.app.hooks.Has(hook.SubagentStop) {
		s.app.hooks.Run(context.WithoutCancel(ctx), hook.SubagentStop, agentType, map[string]any{
			"agent_id": id, "agent_type": agentType, "description": req.Description, "stop_reason": end.StopReason, "last_message": end.Text})
	}
	if end.StopReason == "max_turns" && def.MaxTurns > 0 {
		return end.Text, fmt.Errorf("it stopped after %d model turns, the maxTurns of its definition %s, before it finished", def.MaxTurns, def.Name)
	}
	if end.StopReason != "end_turn" {
		if end.Err != nil {
			return end.Text, end.Err
		}
		return end.Text, fmt.Errorf("it stopped early (%s)", end.StopReason)
	}
	return end.Text, nil
}
