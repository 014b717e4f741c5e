package app

import (
	"context"
	"encoding/json"
	"errors"
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
)

// What a face may read of the session. Changes go through the App's other methods
// and come back as events; these only read.

// SessionID names the session in the store.
func (a *App) SessionID() string { return a.sess.ID() }

// Resumed says the session was taken up from the store (--continue, --resume, a
// loaded ACP session).
func (a *App) Resumed() bool { return a.resumed }

// Provider is the model API in use: anthropic, openai or openai-chat.
func (a *App) Provider() string { return a.provider }

// Model is the model the next request uses.
func (a *App) Model() string { return a.agent.Config.Model }

// Mode is the permission mode now.
func (a *App) Mode() permission.Mode { return a.gate.Mode() }

// Cwd is the session's working folder, absolute.
func (a *App) Cwd() string { return a.opts.Cwd }

// ContextWindow is the model's context window in tokens (0: unknown).
func (a *App) ContextWindow() int { return a.agent.Config.ContextWindow }

// PreviewLines is how many lines of a tool's output a terminal shows (config).
func (a *App) PreviewLines() int { return a.cfg.PreviewLines }

// BackgroundTasks lists the commands of the session's background tasks still running.
func (a *App) BackgroundTasks() []string { return a.shell.Running() }

// Hooks lists the hooks in force: the config files' and the session's (register_hook).
func (a *App) Hooks() []hook.Entry { return a.hooks.List() }

// Rules returns the permission rules in force, each with where it comes from.
func (a *App) Rules() (allow, deny []permission.Rule) { return a.gate.Rules() }

// RulesFiles are the rules files gantry reads, the project's first, whether they
// exist or not.
func (a *App) RulesFiles() []string {
	return []string{filepath.Join(a.cfg.Root(), permission.ProjectRulesFile), filepath.Join(config.UserDir(), permission.UserRulesFile)}
}

// HistoryLen is the number of messages the model's context holds now.
func (a *App) HistoryLen() int { return len(a.agent.History()) }

// Transcript is the stored conversation, repaired as a resume repairs it (every call
// with one result), for a face to show again.
func (a *App) Transcript() ([]llm.Message, error) {
	msgs, err := a.sess.RawMessages()
	if err != nil {
		return nil, err
	}
	return session.Repair(msgs), nil
}

// Compact compacts the conversation now, between turns (a face's /compact), and
// returns how many messages the context held before and after.
func (a *App) Compact(ctx context.Context, focus string) (before, after int, err error) {
	if !a.wake.turn.TryLock() {
		return 0, 0, errors.New("a turn runs (one an asyncRewake hook started): compact when it ends")
	}
	defer a.wake.turn.Unlock()
	before = a.HistoryLen()
	err = a.agent.Compact(ctx, focus)
	return before, a.HistoryLen(), err
}

// RequestCompaction compacts the conversation before the next model request of the
// running turn (a /compact typed while it runs).
func (a *App) RequestCompaction(focus string) { a.agent.RequestCompaction(focus) }

// DescribeCall is what faces show of a stored call of tool name with input (a tool
// this session lacks, or arguments it refuses, show as tool.Unknown).
func (a *App) DescribeCall(name string, input json.RawMessage) tool.Call {
	t, ok := a.reg.Find(name)
	if !ok {
		return tool.Unknown(name)
	}
	inv, msg := t.Decode(a.agent.Env, input)
	if msg != "" {
		inv = tool.Invocation{}
	}
	return tool.Describe(t, inv)
}

// ToolNames lists the tools declared now.
func (a *App) ToolNames() []string {
	return a.reg.Names(a.gate.Mode().MaxLevel())
}
