// Package agent is gantry's loop: it sends the conversation to the model, streams the
// answer out as face events, runs the tool calls through the permission gate, gives
// every call exactly one result, and goes on until the model stops calling tools.
package agent

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

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

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
