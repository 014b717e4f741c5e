// Package agent is gantry's loop: it sends the conversation to the model, streams the
// answer out as face events, runs the tool calls through the permission gate, gives
// every call exactly one result, and goes on until the model stops calling tools.
package agent

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/gantry-dev/gantry/internal/compact"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Recorder stores what happens in a session as it happens. The session store
// implements it; nil means nothing is stored. Each model response and each batch of
// tool results is a message; each settled call is also a tool_finished event the
// moment it ends, so a kill in the middle of a batch keeps the results already had.
// A call is in the assistant message, the usage beside it; that it starts to run is
// a tool_running event.
//
// Writes may be asynchronous; Flush is the loop's barrier. The loop flushes before
// every model request (so the store never holds less than the model saw), before a
// response's calls start (so no call runs that the store does not know), and after
// the tool_running event of a call that may have an effect, before it runs (so that
// a resumed session can tell a call that may have taken effect from one that never
// ran). The first error stops the turn there.
type Recorder interface {
	// Flush returns once everything handed over is on disk, with the errors of
	// writes not reported yet.
	Flush() error
	AppendMessage(m llm.Message) error
	// AppendResponse stores a complete model response with its usage and cost.
	AppendResponse(m llm.Message, u llm.Usage, cost float64) error
	AppendEvent(kind string, payload any) error
	// MarkCompaction records that the model's context became history.
	MarkCompaction(history []llm.Message) error
	// AddUsage records usage that belongs to no stored response (a subagent's, a
	// summary's).
	AddUsage(u llm.Usage, cost float64) error
	EndTurn() error
}

// Config holds the settings of a loop.
type Config struct {
	Model     string
	System    string
	MaxTokens int
	// MaxTurns bounds the model responses of one Run; 0 means 100.
	MaxTurns int
	// MaxOutput bounds each tool result's text, in characters.
	MaxOutput int
	// Price gives the cost in USD of a usage on a model; nil means no cost.
	Price func(model string, u llm.Usage) float64
	// RefusalHint completes the sentence given to the model when a call is refused
	// because nobody can be asked (print mode names the flag that would allow it).
	RefusalHint func(c permission.Call, v permission.Verdict) string
	// ContextWindow is the model's context window in tokens (0: unknown, never
	// compacted by itself); CompactThreshold the share of it at which the
	// conversation is compacted (0: compact.DefaultThreshold).
	ContextWindow    int
	CompactThreshold float64
	// Memory is the memory files' text of the start, given again after a compaction
	// with the files Nested added since.
	Memory string
	// TodoText and TasksText give the todo list and the task board as text, kept
	// verbatim through a compaction (may be nil).
	TodoText, TasksText func() string
	// Defer is tools.defer (auto, never, always; "": never) and Search tools.search
	// (auto: the API's own tool search where it has one; server; client: gantry's
	// tool_search, ToolSearch, everywhere). MCPBudget is tool.DefaultMCPBudget when 0.
	Defer, Search string
	ToolSearch    tool.Tool
	MCPBudget     int
	// CacheKey groups the session's requests for the API's prompt cache (its id).
	CacheKey string
	// SaveRule writes an "always" answer (the grant the question showed) into the
	// project's rules file and returns the rules it wrote; nil means answers are kept
	// for the session only.
	SaveRule func(c permission.Call, g permission.Grant) (string, error)
}

// Agent is one conversation's loop. Run is not safe for concurrent use; one turn
// runs at a time.
type Agent struct {
	Provider llm.Provider
	Tools    *tool.Registry
	Gate     permission.Gate
	Asker    face.Asker
	Sink     face.Sink
	Store    Recorder
	Hooks    Hooks
	Env      tool.Env
	// Outputs keeps the whole text of the results Config.MaxOutput cuts, which their
	// note names (nil: none is kept, and the note says so).
	Outputs tool.Outputs
	// Nested adds the memory files of the folders below the working directory as calls
	// touch them (nil: none).
	Nested NestedMemory
	// MaxLevel caps the declared tools (plan mode and read-only agents: LevelRead).
	MaxLevel func() tool.Level
	// BeforeChange is called once a turn, before the turn's first call that may change
	// something (a write or exec tool) runs: the session keeps a checkpoint there (nil:
	// nothing).
	BeforeChange func(ctx context.Context)
	// Pending gives what came for the model while a turn runs (an asyncRewake hook's
	// reminder): it goes after the results of the step's calls, with the next
	// request (nil: nothing comes).
	Pending func() []llm.Block
	Config  Config

	changed      atomic.Bool // BeforeChange has run in the running turn
	changeMu     sync.Mutex  // held while BeforeChange runs: another change waits for it
	mu           sync.Mutex
	history      []llm.Message
	loop         loopDetector
	usage        llm.Usage
	cost         float64
	lastContext  int64 // tokens the last request filled, for compaction
	compactAsked bool  // the compact tool asked for a compaction
	compactFocus string
	storeErr     error  // the first store error of the running turn
	hookStop     string // a hook ended the running turn (continue: false): why
	// lastDeferred are the tools the last request deferred (for tool_search);
	// clientSearch is set once the API refused its own tool search.
	lastDeferred []tool.Tool
	clientSearch bool
}

// SetHistory replaces the conversation (on resume).
func (a *Agent) SetHistory(h []llm.Message) {
	a.mu.Lock()
	a.history = append([]llm.Message(nil), h...)
	a.mu.Unlock()
}

// History returns a copy of the conversation.
func (a *Agent) History() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return append([]llm.Message(nil), a.history...)
}

// AddUsage counts usage spent on the session's behalf elsewhere (a subagent's, a
// summary's) in its totals, stores it, and announces the new totals.
func (a *Agent) AddUsage(u llm.Usage, cost float64) {
	a.mu.Lock()
	a.usage = a.usage.Add(u)
	a.cost += cost
	ev := face.TurnUsage{Model: a.Config.Model, Usage: u, Cost: cost, SessionUsage: a.usage, SessionCost: a.cost, Elsewhere: true}
	a.mu.Unlock()
	if a.Store != nil {
		a.stored(a.Store.AddUsage(u, cost))
	}
	a.emit(ev)
}

// stored notes a store error. The first of a turn stops it at the next barrier
// (see Recorder): before the next model request or the next call runs; nothing more
// of the turn is written. The turn's TurnEnded says it (Err and StoreErr).
func (a *Agent) stored(err error) {
	if err == nil {
		return
	}
	a.mu.Lock()
	if a.storeErr == nil {
		a.storeErr = err
	}
	a.mu.Unlock()
}

// failed returns the running turn's store error, if any.
func (a *Agent) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.storeErr
}

// durable is the loop's barrier: it waits until everything handed to the store is
// on disk and returns the turn's store error, if any.
func (a *Agent) durable() error {
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.Flush())
	}
	return a.failed()
}

// StoreError says a store error of the session's made outside a turn (a title that
// could not be written): a notice, since no turn ends with it.
func (a *Agent) StoreError(err error) {
	if err != nil {
		a.emit(face.Notice{Text: err.Error()})
	}
}

// StoreStopped is the error a turn ends with when the store could not write: the
// turn stopped at that record, before the next model request or call.
type StoreStopped struct{ Err error }

func (e *StoreStopped) Error() string {
	var d interface{ Damaged() bool }
	if errors.As(e.Err, &d) && d.Damaged() {
		// Nothing more can be written to that file: the advice is the error's own.
		return e.Err.Error() + "; the turn stopped there, before anything more ran"
	}
	return e.Err.Error() + "; the turn stopped there, before anything more ran (once it can be written, --continue goes on from there)"
}

func (e *StoreStopped) Unwrap() error { return e.Err }

// takeStoreErr returns the turn's first store error and forgets it.
func (a *Agent) takeStoreErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.storeErr
	a.storeErr = nil
	return err
}

// conversation shares the history with a request without copying it: messages are
// immutable once appended, and the capped slice keeps later appends out of its view.
func (a *Agent) conversation() []llm.Message {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.history[:len(a.history):len(a.history)]
}

// Usage returns the tokens and cost of the session so far (this process).
func (a *Agent) Usage() (llm.Usage, float64) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.usage, a.cost
}

func (a *Agent) emit(e face.Event) {
	if a.Sink != nil {
		a.Sink(e)
	}
}

// record stores an event, unless the store has failed this turn.
func (a *Agent) record(kind string, payload any) {
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.AppendEvent(kind, payload))
	}
}

// appendMessage adds m to the history and stores it (a store error is noted, see
// stored).
func (a *Agent) appendMessage(m llm.Message) {
	a.mu.Lock()
	a.history = append(a.history, m)
	a.mu.Unlock()
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.AppendMessage(m))
	}
}

// appendResponse adds a complete response to the history and stores it with its usage.
func (a *Agent) appendResponse(m llm.Message, u llm.Usage, cost float64) {
	a.mu.Lock()
	a.history = append(a.history, m)
	a.mu.Unlock()
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.AppendResponse(m, u, cost))
	}
}

// Run sends one user prompt and drives the loop to the model's final answer, the
// turn limit, cancellation or an error. It always returns the TurnEnded it emitted.
func (a *Agent) Run(ctx context.Context, prompt string) face.TurnEnded {
	return a.RunWith(ctx, prompt, nil)
}

// RunWith is Run with more content after the prompt's text: images and documents a
// face attached (ACP prompts).
func (a *Agent) RunWith(ctx context.Context, prompt string, attached []llm.Block) face.TurnEnded {
	a.takeStoreErr() // a fault of an earlier turn was said then
	a.changed.Store(false)
	a.mu.Lock()
	a.hookStop = ""
	a.mu.Unlock()
	end := a.run(ctx, prompt, attached)
	if why := a.stoppedByHook(); why != "" && end.StopReason != "cancelled" {
		end.StopReason, end.Err = "blocked", errors.New(why)
	}
	a.record("turn_ended", map[string]any{"stop_reason": end.StopReason, "steps": end.Steps, "counters": end.Counters, "error": errString(end.Err)})
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.EndTurn())
	}
	end.StoreErr = a.takeStoreErr()
	if end.StoreErr != nil && end.StopReason != "cancelled" {
		var stop *StoreStopped
		if !errors.As(end.Err, &stop) {
			// Found at the turn's end (its last records): the turn had ended, but it
			// is not all stored.
			if end.StopReason == "end_turn" {
				end.StopReason = "error"
			}
			end.Err = errors.Join(&StoreStopped{Err: end.StoreErr}, end.Err)
		}
	}
	a.emit(end)
	return end
}

// storeStopped ends a turn on the store's error.
func storeStopped(end face.TurnEnded, err error) face.TurnEnded {
	end.StopReason, end.Err = "error", &StoreStopped{Err: err}
	return end
}

func (a *Agent) run(ctx context.Context, prompt string, attached []llm.Block) face.TurnEnded {
	var end face.TurnEnded
	msg, blocked := a.promptMessage(ctx, prompt, attached)
	if a.stoppedByHook() != "" {
		return end
	}
	if blocked != "" {
		end.StopReason, end.Err = "blocked", fmt.Errorf("a UserPromptSubmit hook refused the prompt: %s", blocked)
		return end
	}
	a.appendMessage(msg)
	stopHookActive := false
	maxTurns := a.Config.MaxTurns
	if maxTurns <= 0 {
		maxTurns = 100
	}
	for end.Steps < maxTurns {
		end.Steps++
		a.maybeCompact(ctx)
		// What the model is about to see is on disk first.
		if err := a.durable(); err != nil {
			return storeStopped(end, err)
		}
		resp, cost, err := a.request(ctx)
		calls := resp.Message.ToolCalls() // as the model sent them, before sanitizing
		if len(resp.Message.Content) > 0 {
			msg := resp.Message
			msg.Content = sanitizeToolInputs(append([]llm.Block(nil), msg.Content...))
			if err == nil {
				a.appendResponse(msg, resp.Usage, cost)
			} else {
				a.appendMessage(msg) // what was streamed before the failure
			}
		}
		if err != nil {
			if ctx.Err() != nil {
				end.StopReason = "cancelled"
			} else {
				end.StopReason, end.Err = "error", err
			}
			end.Text = resp.Message.Text()
			return end
		}
		end.Text = resp.Message.Text()
		if len(calls) == 0 {
			if goOn := a.stopHook(ctx, end.Text, stopHookActive); goOn != "" && ctx.Err() == nil {
				stopHookActive = true
				a.appendMessage(llm.Message{Role: llm.RoleUser, Content: []llm.Block{{Type: llm.BlockText, Text: "<stop-hook>\n" + goOn + "\n</stop-hook>"}}})
				continue
			}
			end.StopReason = resp.StopReason
			if end.StopReason == "" || end.StopReason == "tool_use" {
				end.StopReason = "end_turn"
			}
			return end
		}
		results, counters := a.runCalls(ctx, calls)
		if a.Pending != nil {
			results = append(results, a.Pending()...)
		}
		end.Counters = end.Counters.Add(counters)
		a.appendMessage(llm.Message{Role: llm.RoleUser, Content: results})
		a.emit(face.StepEnded{Step: end.Steps, Counters: end.Counters})
		if ctx.Err() != nil {
			end.StopReason = "cancelled"
			return end
		}
		if err := a.failed(); err != nil {
			return storeStopped(end, err)
		}
		if a.stoppedByHook() != "" {
			return end // RunWith says why
		}
	}
	end.StopReason = "max_turns"
	end.Err = fmt.Errorf("stopped after %d turns (--max-turns)", maxTurns)
	return end
}

// NextRequest is the request the next model call would send, as it is now: what
// /context and gantry prompt show is what the model reads.
func (a *Agent) NextRequest() llm.Request {
	req, _ := a.next()
	return req
}

// Declaration is what the next request declares, defers and has found of the tools.
func (a *Agent) Declaration() tool.Declaration {
	_, d := a.next()
	return d
}

func (a *Agent) next() (llm.Request, tool.Declaration) {
	level := tool.LevelExec
	if a.MaxLevel != nil {
		level = a.MaxLevel()
	}
	history := a.conversation()
	server := a.serverSearch()
	d := a.Tools.Declare(level, tool.DeferPolicy{Mode: cmp.Or(a.Config.Defer, tool.DeferNever), Server: server, Search: a.Config.ToolSearch,
		Found: found(history), MCPBudget: a.Config.MCPBudget})
	system := a.Config.System
	if list := tool.Deferred(d.Deferred); list != "" {
		how := "the tool search loads them"
		if !server {
			how = "tool_search loads them"
		}
		system += "\n<deferred-tools>\nThese tools exist but are not declared: " + how +
			" (by name or purpose) before you call one.\n" + list + "</deferred-tools>\n"
	}
	return llm.Request{
		Model:     a.Config.Model,
		System:    system,
		Messages:  history,
		Tools:     d.Specs,
		MaxTokens: a.Config.MaxTokens,
		CacheKey:  a.Config.CacheKey,
	}, d
}

// serverSearch says whether deferred tools are left to the API's own tool search.
func (a *Agent) serverSearch() bool {
	a.mu.Lock()
	client := a.clientSearch
	a.mu.Unlock()
	switch {
	case client || a.Config.Search == "client":
		return false
	case a.Config.Search == "server":
		return true
	}
	return llm.SearchesTools(a.Provider)
}

// deferred are the tools the last request deferred.
func (a *Agent) deferred() []tool.Tool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.lastDeferred
}

// found names the deferred tools a tool search of the conversation loaded, in order.
func found(history []llm.Message) []string {
	var names []string
	for _, m := range history {
		for _, b := range m.Content {
			names = append(names, b.Found...)
		}
	}
	return names
}

// request sends the conversation and streams the answer out; it returns the answer
// and its cost. On error the partial answer (text streamed before a cancel) is
// returned so it is not lost.
func (a *Agent) request(ctx context.Context) (llm.Response, float64, error) {
	resp, cost, err := a.requestOnce(ctx)
	if err != nil && ctx.Err() == nil && a.serverSearch() && refusedSearch(err) {
		// The API (a proxy, an older model) has no tool search: gantry's own finds
		// the deferred tools from now on.
		a.mu.Lock()
		a.clientSearch = true
		a.mu.Unlock()
		a.emit(face.Notice{Text: "The model's API refused its own tool search; gantry's tool_search finds the deferred tools instead (tools.search: client says so from the start)."})
		return a.requestOnce(ctx)
	}
	return resp, cost, err
}

// refusedSearch says whether err is an API refusing the deferred tools or its tool
// search.
func refusedSearch(err error) bool {
	var api *llm.APIError
	if !errors.As(err, &api) {
		return false
	}
	msg := strings.ToLower(api.Msg)
	return strings.Contains(msg, "defer_loading") || strings.Contains(msg, "tool_search") || strings.Contains(msg, "tool search")
}

func (a *Agent) requestOnce(ctx context.Context) (llm.Response, float64, error) {
	req, d := a.next()
	a.mu.Lock()
	a.lastDeferred = d.Deferred
	a.mu.Unlock()
	// The text streamed so far, kept when the call fails; a builder, as an endless
	// answer must not cost time quadratic in its length.
	var partial strings.Builder
	attempt := 0
	resp, err := a.Provider.Stream(ctx, req, func(d llm.Delta) {
		switch d.Type {
		case llm.DeltaText:
			partial.WriteString(d.Text)
			a.emit(face.TextDelta{Text: d.Text})
		case llm.DeltaThinking:
			a.emit(face.ThinkingDelta{Text: d.Text})
		case llm.DeltaRetry:
			attempt++
			partial.Reset()
			a.record("retry", map[string]any{"attempt": attempt, "reason": d.Text})
			a.emit(face.Retry{Attempt: attempt, Reason: d.Text})
		}
	})
	if err != nil {
		if len(resp.Message.Content) == 0 && partial.Len() > 0 {
			resp.Message = llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{{Type: llm.BlockText, Text: partial.String()}}}
		}
		// An interrupted answer keeps its text but never a tool call without a result.
		resp.Message.Content = textOnly(resp.Message.Content)
		return resp, 0, err
	}
	resp.Message.Role = llm.RoleAssistant
	return resp, a.account(resp.Usage), nil
}

// account adds a response's usage to the session's totals, announces it, and
// returns its cost.
func (a *Agent) account(u llm.Usage) float64 {
	var cost float64
	if a.Config.Price != nil {
		cost = a.Config.Price(a.Config.Model, u)
	}
	a.mu.Lock()
	a.usage = a.usage.Add(u)
	a.cost += cost
	a.lastContext = compact.ContextTokens(u)
	ev := face.TurnUsage{Model: a.Config.Model, Usage: u, Cost: cost, SessionUsage: a.usage, SessionCost: a.cost}
	a.mu.Unlock()
	a.emit(ev)
	return cost
}

func textOnly(bs []llm.Block) []llm.Block {
	var out []llm.Block
	for _, b := range bs {
		if b.Type == llm.BlockText && b.Text != "" {
			out = append(out, b)
		}
	}
	return out
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
