package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// pending is one tool call of a response on its way to a result.
type pending struct {
	block     llm.Block
	tool      tool.Tool
	inv       tool.Invocation
	call      tool.Call // what faces show of it
	note      string    // said of the call on ToolStarted (a hook rewrote its input)
	started   bool      // ToolStarted was sent
	result    *tool.Result
	took      time.Duration
	cancelled bool   // interrupted before or while it ran
	askHook   string // a PreToolUse hook asked that the person be asked: why
	memory    string // the memory files it added, appended to its result for the model
	// unsettled counts the calls of the response not settled yet, shared by them.
	unsettled *atomic.Int32
	// outside: no response of the model's asked for the call (Call). See Call for
	// the few steps such a call skips, and why.
	outside bool
}

// runCalls settles every call of a response, in order: decode, hooks, gate, run.
// Calls of read tools that follow each other run in parallel; write and exec calls,
// and those of a Serial tool, run one at a time. Every call gets exactly one result
// block, in the order of the calls, and its ToolStarted before its ToolFinished.
func (a *Agent) runCalls(ctx context.Context, calls []llm.Block) ([]llm.Block, face.Counters) {
	ps := make([]*pending, len(calls))
	unsettled := new(atomic.Int32)
	unsettled.Store(int32(len(calls)))
	for i, c := range calls {
		ps[i] = a.prepare(c, unsettled, false)
	}
	// No call that may have an effect runs (nor its hooks) before the response that
	// asks for it is on disk; read calls may start while it is being written.
	if slices.ContainsFunc(ps, func(p *pending) bool { return p.tool != nil && p.tool.Level() != tool.LevelRead }) {
		a.durable()
	}
	for i := 0; i < len(ps); {
		p := ps[i]
		if p.result != nil {
			i++
			continue
		}
		if err := a.failed(); err != nil {
			a.settle(p, notStored(p.block.ToolName, err), false)
			i++
			continue
		}
		if why := a.stoppedByHook(); why != "" {
			a.settle(p, tool.Fail("[not run: "+why+"]"), true)
			i++
			continue
		}
		if ctx.Err() != nil {
			p.cancelled = true
			a.settle(p, cancelledResult(p.block.ToolName), false)
			i++
			continue
		}
		if !a.permit(ctx, p) {
			i++
			continue
		}
		if p.tool.Level() != tool.LevelRead || p.tool.Info().Serial {
			a.execute(ctx, p)
			i++
			continue
		}
		// A run of read calls: gate each, then run the permitted ones together.
		batch := []*pending{p}
		j := i + 1
		for ; j < len(ps); j++ {
			q := ps[j]
			if q.result != nil {
				continue
			}
			if q.tool.Level() != tool.LevelRead || q.tool.Info().Serial {
				break
			}
			if err := a.failed(); err != nil {
				a.settle(q, notStored(q.block.ToolName, err), false)
				continue
			}
			if why := a.stoppedByHook(); why != "" {
				a.settle(q, tool.Fail("[not run: "+why+"]"), true)
				continue
			}
			if ctx.Err() != nil {
				q.cancelled = true
				a.settle(q, cancelledResult(q.block.ToolName), false)
				continue
			}
			if a.permit(ctx, q) {
				batch = append(batch, q)
			}
		}
		if len(batch) == 1 { // no goroutine for a lone call
			a.execute(ctx, batch[0])
			i = j
			continue
		}
		var wg sync.WaitGroup
		for _, q := range batch {
			wg.Go(func() { a.execute(ctx, q) })
		}
		wg.Wait()
		i = j
	}
	var counters face.Counters
	results := make([]llm.Block, len(ps))
	for i, p := range ps {
		counters.Count(p.call.Counter)
		r := p.result
		results[i] = llm.Block{Type: llm.BlockToolResult, ToolCallID: p.block.ToolCallID, Text: r.Text + p.memory, IsError: r.IsError, Images: r.Images, Found: r.Found}
	}
	return results, counters
}

// prepare decodes a call. Unknown tools and malformed arguments are settled at once
// with a sentence for the model.
func (a *Agent) prepare(c llm.Block, unsettled *atomic.Int32, outside bool) *pending {
	p := &pending{block: c, unsettled: unsettled, call: tool.Unknown(c.ToolName), outside: outside}
	t, ok := a.Tools.Lookup(c.ToolName)
	if ok && a.MaxLevel != nil && t.Level() > a.MaxLevel() {
		ok = false
	}
	if !ok {
		a.settle(p, tool.Fail(a.unknownTool(c.ToolName)), false)
		return p
	}
	p.tool = t
	if c.RawInput != "" {
		// Arguments that are not JSON are not run as {}: the model is told.
		p.call = tool.Describe(t, tool.Invocation{})
		a.settle(p, tool.Fail(llm.ArgumentsError(c)), false)
		return p
	}
	inv, msg := t.Decode(a.envFor(t.Name()), c.Input)
	if inv.Input != nil {
		p.block.Input = inv.Input // a former spelling rewritten: hooks see the current one
	}
	p.inv, p.call = inv, tool.Describe(t, inv)
	if msg != "" {
		a.settle(p, tool.Fail(msg), false)
	}
	return p
}

// fileGuards is a gate that also checks each file a call reads or writes
// (permission.Engine).
type fileGuards interface {
	FileGuard(tool string) tool.FileGuard
}

// envFor is the environment of a call of the tool name: the session's, with the
// gate's per-file check of the call's tool, unless one is set already.
func (a *Agent) envFor(name string) tool.Env {
	env := a.Env
	if g, ok := a.Gate.(fileGuards); ok && env.Files == nil {
		env.Files = g.FileGuard(name)
	}
	return env
}

// start announces a call once: ToolStarted, with what it will run as.
func (a *Agent) start(p *pending) {
	if p.started {
		return
	}
	p.started = true
	a.emit(face.ToolStarted{CallID: p.block.ToolCallID, Call: p.call, Input: p.block.Input, Note: p.note})
}

// unknownTool is the answer to a call of a tool that is not here: the gantry tool to
// call instead when the name is another agent's (Claude Code's Bash, Codex's shell),
// else the tools there are.
func (a *Agent) unknownTool(name string) string {
	level := tool.LevelExec
	if a.MaxLevel != nil {
		level = a.MaxLevel()
	}
	if t, ok := a.Tools.Counterpart(name, level); ok {
		return fmt.Sprintf("There is no tool named %q here: gantry's tool for it is %s. Call %s with its own arguments (see its schema).", name, t.Name(), t.Name())
	}
	return fmt.Sprintf("There is no tool named %q here. Available tools: %s.", name, joinNames(a.declaredNames()))
}

func (a *Agent) declaredNames() []string {
	level := tool.LevelExec
	if a.MaxLevel != nil {
		level = a.MaxLevel()
	}
	return a.Tools.Names(level)
}

// gateCall is what the gate knows of a prepared call. Its level is the call's (its
// operation's, see tool.Ops): the person is asked per operation.
func gateCall(p *pending) permission.Call {
	return permission.Call{Tool: p.tool.Name(), Level: p.call.Level, ToolLevel: p.tool.Level(), Principal: p.inv.Principal, Paths: p.inv.Paths,
		Files: p.tool.Info().Files}
}

// permit runs the PreToolUse hooks, announces the call, asks the gate, and the person
// when the gate asks. A refused call is settled.
func (a *Agent) permit(ctx context.Context, p *pending) bool {
	hookAllows := a.preToolUse(ctx, p)
	if p.result != nil {
		return false // blocked by a hook, or its rewrite did not decode
	}
	a.start(p)
	call := gateCall(p)
	if a.Gate == nil {
		return true
	}
	v := a.Gate.Check(call)
	byHook := p.askHook != "" && v.Decision != permission.Deny
	if byHook {
		// A hook asked for the question: asked whatever the mode and the allow
		// rules say (no "always": the hook asks each time).
		v = permission.Verdict{Decision: permission.Ask, Reason: p.askHook}
	}
	if v.Decision == permission.Ask && (hookAllows || byPerson(ctx)) {
		return true
	}
	switch v.Decision {
	case permission.Allow:
		return true
	case permission.Deny:
		a.settle(p, tool.Fail(fmt.Sprintf("%s was refused: %s. Do not retry the same call; find another way or ask the user.", call.Tool, v.Reason)), true)
		return false
	}
	asker := a.Asker
	if asker == nil {
		asker = face.NoHuman{}
	}
	nobody := face.Nobody(asker)
	if !nobody {
		a.hook(ctx, HookNotification, "", map[string]any{"notification_type": "permission_prompt",
			"message": fmt.Sprintf("gantry needs your permission to use %s", call.Tool)})
	}
	req := face.PermissionRequest{CallID: p.block.ToolCallID, Call: p.call, Input: p.block.Input, Reason: v.Reason,
		Always: a.Gate.Suggest(call), EveryMode: v.EveryMode || byHook, ByHook: byHook}
	if !nobody && p.inv.Preview != nil {
		req.Preview = p.inv.Preview(ctx)
	}
	ans, err := asker.AskPermission(ctx, req)
	switch {
	case errors.Is(err, face.ErrNoHuman):
		hint := ""
		if a.Config.RefusalHint != nil {
			hint = " " + a.Config.RefusalHint(call, v)
		}
		a.settle(p, tool.Fail(fmt.Sprintf("%s was not run: it needs permission (%s) and nobody is here to give it.%s", call.Tool, v.Reason, hint)), true)
		return false
	case err != nil:
		p.cancelled = ctx.Err() != nil
		a.settle(p, cancelledResult(call.Tool), true)
		return false
	}
	switch ans {
	case face.AllowAlways:
		if err := a.Gate.Grant(call, req.Always); err != nil {
			a.emit(face.Notice{Text: err.Error()})
		}
		return true
	case face.AllowAlwaysSaved:
		if a.Config.SaveRule == nil {
			if err := a.Gate.Grant(call, req.Always); err != nil {
				a.emit(face.Notice{Text: err.Error()})
			}
			return true
		}
		if rule, err := a.Config.SaveRule(call, req.Always); err != nil {
			_ = a.Gate.Grant(call, req.Always)
			a.emit(face.Notice{Text: fmt.Sprintf("the rule for %s could not be saved: %v; it holds for this session", call.Tool, err)})
		} else {
			a.emit(face.Notice{Text: fmt.Sprintf("saved the rule %s to the project's permissions", rule), Info: true})
		}
		return true
	case face.AllowOnce:
		return true
	case face.DenyAlways:
		a.Gate.Remember(call, false)
	}
	a.settle(p, rejected(p.call), true)
	return false
}

// rejected is what the model reads of a call the person refused.
func rejected(c tool.Call) tool.Result {
	if c.Kind == tool.KindExecute {
		return tool.Fail("[command rejected by the user]")
	}
	return tool.Fail(fmt.Sprintf("[%s rejected by the user]", c.Name))
}

func cancelledResult(name string) tool.Result {
	return tool.Fail(fmt.Sprintf("[cancelled: the user interrupted the turn before %s ran]", name))
}

// notStored is the result of a call that did not run because the session store
// failed (the turn stops; this result is never sent).
func notStored(name string, err error) tool.Result {
	return tool.Fail(fmt.Sprintf("[not run: %s could not be stored (%v)]", name, err))
}

// execute runs a permitted call and settles it. The start of a model's call is
// stored first: a call that may have an effect runs only once that is on disk.
func (a *Agent) execute(ctx context.Context, p *pending) {
	a.emit(face.ToolRunning{CallID: p.block.ToolCallID, Name: p.block.ToolName})
	if !p.outside {
		// The event kinds are the ones the session store reads on resume
		// (session.KindToolRunning, session.KindToolFinished).
		a.record("tool_running", map[string]any{"id": p.block.ToolCallID, "name": p.block.ToolName})
	}
	if p.tool.Level() != tool.LevelRead {
		if !p.outside {
			if err := a.durable(); err != nil {
				a.settle(p, notStored(p.block.ToolName, err), false)
				return
			}
		}
		a.beforeChange(ctx)
	}
	start := time.Now()
	live := newTailer(p.block.ToolCallID, a.emit)
	runCtx := tool.WithProgress(tool.WithRelay(tool.WithCallID(tool.WithOutputs(tool.WithDeferred(ctx, a.deferred()), a.Outputs), p.block.ToolCallID), a.relay(p.block.ToolCallID)), live.write)
	r := p.inv.Run(runCtx)
	live.stop()
	p.took = time.Since(start)
	p.cancelled = ctx.Err() != nil
	a.postToolUse(ctx, p, &r)
	var notice face.Event
	if !p.outside {
		p.memory, notice = a.touchMemory(p)
	}
	a.settle(p, r, false)
	if notice != nil {
		a.emit(notice)
	}
}

// beforeChange calls BeforeChange once a turn; a change that comes while it runs (a
// call beside the first) waits for it to end.
func (a *Agent) beforeChange(ctx context.Context) {
	if a.BeforeChange == nil || a.changed.Load() {
		return
	}
	a.changeMu.Lock()
	defer a.changeMu.Unlock()
	if !a.changed.Load() {
		a.BeforeChange(ctx)
		a.changed.Store(true)
	}
}

// NoteChange is what an agent working for this one's turn (a subagent, a vibe worker)
// calls before its own call that may change something: this turn's BeforeChange runs
// first, once, as for this agent's own calls.
func (a *Agent) NoteChange(ctx context.Context) { a.beforeChange(ctx) }

// Changed reports whether the running (or last) turn ran a call that may change
// something.
func (a *Agent) Changed() bool { return a.changed.Load() }

// settle bounds the result, applies the loop detector, and announces it. Each call is
// settled exactly once. The memory files the call added (p.memory) go to the model and
// the store after the bounded text, and not to the face, which has a notice of them.
func (a *Agent) settle(p *pending, r tool.Result, refused bool) {
	if p.result != nil {
		return
	}
	a.start(p)
	// The loop detector sees the whole text: a cut one's note names a file of its own
	// each call.
	var note string
	if !p.outside {
		note = a.loop.observe(p.block.ToolName, p.block.Input, r.Text)
	}
	bound := a.Config.MaxOutput
	if note != "" && bound > 0 {
		bound = max(1, bound-utf8.RuneCountInString(note)-1) // the note counts in the bound
	}
	r = tool.Fit(r, bound, a.Outputs, p.block.ToolCallID)
	if r.Text == "" && len(r.Images) == 0 {
		r.Text = "(no output)"
	}
	if note != "" {
		r.Text += "\n" + note
	}
	p.result = &r
	// The results of a response are stored together as one message once all its
	// calls are settled; until then each result is kept as an event, so a kill in
	// the middle of a batch keeps the results already had (the session's resume
	// puts them back). The last one needs none: the message follows at once.
	if p.unsettled.Add(-1) > 0 && !p.outside {
		a.record("tool_finished", map[string]any{"id": p.block.ToolCallID, "name": p.block.ToolName, "is_error": r.IsError, "refused": refused, "text": r.Text + p.memory})
	}
	for _, b := range r.Blocked {
		a.emit(face.ExecBlocked{CallID: p.block.ToolCallID, Rule: b.Rule, Command: b.Command})
	}
	a.emit(face.ToolFinished{CallID: p.block.ToolCallID, Call: p.call, Result: r, Refused: refused, Cancelled: p.cancelled, Duration: p.took})
}

func joinNames(names []string) string {
	s := ""
	for i, n := range names {
		if i > 0 {
			s += ", "
		}
		s += n
	}
	return s
}

// relay is the Relay of the call parent: a tool call from inside it (an eval cell's
// tool()) is a Call of its own (id parent.N). It is not stored apart: its parent's
// result holds what came of it.
func (a *Agent) relay(parent string) tool.Relay {
	var n atomic.Int32
	return func(ctx context.Context, name string, input json.RawMessage) tool.Result {
		return a.Call(ctx, fmt.Sprintf("%s.%d", parent, n.Add(1)), name, input)
	}
}

// Call runs one tool call that no response of the model's asked for (a relayed call,
// another program's through gantry mcp, a command the person typed) through the
// loop's own steps — prepare (decoding), permit (the PreToolUse hooks, the gate and
// the person), execute (the run with its relays, progress and bound, the checkpoint
// before a change, the PostToolUse hooks) and settle (ToolFinished, once) — and
// shows it as a call of its own under id.
//
// It differs from a model's call only where it must (p.outside):
//   - nothing is stored of it (no tool_running, tool_finished, nor the barrier before
//     an effect): it is no part of the conversation; a relayed call's result is in
//     its parent's;
//   - the loop detector does not see it: a program repeating a call is not the model
//     repeating itself, and the note would change what the program reads;
//   - it adds no memory files: the model does not read its result, so they would be
//     marked given without having been read;
//   - the turn's guards (a store failure, a hook that stopped the turn) are the
//     loop's, deciding a response's calls not run yet; Call's caller decides for its
//     own (a relayed call runs inside its parent, which those guards let through).
func (a *Agent) Call(ctx context.Context, id, name string, input json.RawMessage) tool.Result {
	one := new(atomic.Int32)
	one.Store(1)
	p := a.prepare(llm.Block{Type: llm.BlockToolUse, ToolCallID: id, ToolName: name, Input: input}, one, true)
	switch {
	case p.result != nil:
	case ctx.Err() != nil:
		p.cancelled = true
		a.settle(p, cancelledResult(name), false)
	case a.permit(ctx, p):
		a.execute(ctx, p)
	}
	return *p.result
}

type personKey struct{}

// AsPerson marks a call the person typed themselves (the terminal's !command): the gate
// does not ask them about it, but its deny rules, the hooks, the exec supervisor and the
// sandbox hold as for any call.
func AsPerson(ctx context.Context) context.Context { return context.WithValue(ctx, personKey{}, true) }

func byPerson(ctx context.Context) bool { v, _ := ctx.Value(personKey{}).(bool); return v }
