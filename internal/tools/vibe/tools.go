package vibe

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// defaultWait is how long vibe_wait waits when no timeout is given; maxWait bounds it.
const (
	defaultWait = 5 * time.Minute
	maxWait     = 30 * time.Minute
)

type spawnArgs struct {
	Brief string `json:"brief" jsonschema_description:"The worker's whole task: it sees nothing of this conversation, so say what to do, where, what done means and what to report."`
	Label string `json:"label" jsonschema_description:"A few words naming the worker, shown to the person beside its tool calls."`
	Tier  string `json:"tier,omitempty" jsonschema:"enum=fast,enum=good" jsonschema_description:"fast (default): mechanical work with a clear spec; good: design, judgement, or review of a fast worker's output."`
}

type sendArgs struct {
	WorkerID string `json:"worker_id" jsonschema_description:"The worker, as vibe_spawn named it (w1, w2, …)."`
	Message  string `json:"message" jsonschema_description:"More brief: a correction, the next step, an answer to its question."`
}

type waitArgs struct {
	WorkerID string `json:"worker_id" jsonschema_description:"The worker to wait for."`
	Timeout  int    `json:"timeout,omitempty" jsonschema_description:"Seconds to wait at most (default 300, at most 1800); the worker goes on after a timeout."`
}

type killArgs struct {
	WorkerID string `json:"worker_id" jsonschema_description:"The worker to stop."`
}

type listArgs struct{}

func def[T any](d tool.Def[T]) tool.Tool {
	d.Level, d.Kind, d.Icon, d.Conversation = tool.LevelRead, tool.KindOther, "🐝", true
	d.Core = true // declared only while the person has vibe mode on
	return tool.New(d)
}

func needID(id string) string {
	if strings.TrimSpace(id) == "" {
		return `needs "worker_id": the id vibe_spawn gave (vibe_list lists them).`
	}
	return ""
}

func spawnTool(b *Board) tool.Tool {
	return def(tool.Def[spawnArgs]{
		Name: "vibe_spawn", Label: "Start a background worker",
		// Spawns of one response run in its order, so that their ids (w1, w2…) follow
		// the calls, not which of them happened to start first.
		Serial:      true,
		Description: "Start a background worker on a brief and return at once with its id. The worker is an agent of its own, with a fresh context and the session's tools under the same permissions; it runs while you go on, and outlives this turn. Use several for independent pieces of work; follow them with vibe_list, wait for one with vibe_wait, steer one with vibe_send, stop one with vibe_kill.",
		Principal:   func(a spawnArgs) string { return a.Label },
		Title: func(_ tool.Env, a spawnArgs, _ []string) string {
			return fmt.Sprintf("Start worker [%s] (%s)", a.Label, tierOf(a.Tier))
		},
		Check: func(a spawnArgs) string {
			switch {
			case strings.TrimSpace(a.Brief) == "":
				return "vibe_spawn needs a non-empty brief: the worker's whole task."
			case strings.TrimSpace(a.Label) == "":
				return "vibe_spawn needs a label: a few words naming the worker." // tier: its schema's enum
			}
			return ""
		},
		Run: func(_ context.Context, _ tool.Env, a spawnArgs) tool.Result {
			s, err := b.spawn(a.Brief, strings.TrimSpace(a.Label), tierOf(a.Tier))
			if err != nil {
				return tool.Fail(fmt.Sprintf("The worker could not be started: %v.", err))
			}
			return tool.Result{Text: fmt.Sprintf("Started worker %s [%s], tier %s (model %s). It runs in the background: vibe_wait {\"worker_id\": %q} returns its final message.", s.ID, s.Label, s.Tier, s.Model, s.ID)}
		},
	})
}

func tierOf(t string) string {
	if t == "" {
		return Fast
	}
	return t
}

func sendTool(b *Board) tool.Tool {
	return def(tool.Def[sendArgs]{
		Name: "vibe_send", Label: "Give a worker more brief",
		Description: "Add to a worker's brief. A worker that has ended runs again with the message, in its own conversation (it remembers what it did); a running worker gets it when its current step of work ends.",
		Principal:   func(a sendArgs) string { return a.WorkerID },
		Title:       func(_ tool.Env, a sendArgs, _ []string) string { return "Brief worker " + a.WorkerID },
		Check: func(a sendArgs) string {
			if m := needID(a.WorkerID); m != "" {
				return "vibe_send " + m
			}
			if strings.TrimSpace(a.Message) == "" {
				return "vibe_send needs a non-empty message."
			}
			return ""
		},
		Run: func(_ context.Context, _ tool.Env, a sendArgs) tool.Result {
			restarted, err := b.send(a.WorkerID, a.Message)
			if err != nil {
				return tool.Fail(sentence(err))
			}
			if restarted {
				return tool.Result{Text: fmt.Sprintf("Worker %s had ended; it runs again with the message.", a.WorkerID)}
			}
			return tool.Result{Text: fmt.Sprintf("Worker %s is running; it gets the message when its current run ends.", a.WorkerID)}
		},
	})
}

func waitTool(b *Board) tool.Tool {
	return def(tool.Def[waitArgs]{
		Name: "vibe_wait", Label: "Wait for a worker",
		Description: "Wait until a worker ends and return its final message (or why it failed). After timeout seconds (default 300) it returns saying the worker still runs; the worker goes on.",
		Principal:   func(a waitArgs) string { return a.WorkerID },
		Title:       func(_ tool.Env, a waitArgs, _ []string) string { return "Wait for worker " + a.WorkerID },
		Check: func(a waitArgs) string {
			if m := needID(a.WorkerID); m != "" {
				return "vibe_wait " + m
			}
			if a.Timeout < 0 {
				return "vibe_wait: timeout cannot be negative."
			}
			return ""
		},
		Formers: []tool.Former{{Name: "timeout_seconds", New: "timeout"}},
		Run: func(ctx context.Context, _ tool.Env, a waitArgs) tool.Result {
			timeout := defaultWait
			if a.Timeout > 0 {
				timeout = min(time.Duration(a.Timeout)*time.Second, maxWait)
			}
			s, ended, err := b.wait(ctx, a.WorkerID, timeout)
			if err != nil {
				if ctx.Err() != nil {
					return tool.Fail(fmt.Sprintf("[cancelled: stopped waiting for worker %s; it goes on]", a.WorkerID))
				}
				return tool.Fail(sentence(err))
			}
			if !ended {
				return tool.Result{Text: fmt.Sprintf("Worker %s [%s] is still running after %s; wait again, or steer it with vibe_send.", s.ID, s.Label, round(timeout))}
			}
			head := fmt.Sprintf("Worker %s [%s] %s after %s.", s.ID, s.Label, s.Status, round(s.Elapsed))
			r := tool.Result{Text: tool.Bound(head+"\n\n"+s.Last, b.opts.MaxOutput)}
			r.IsError = s.Status == "failed"
			return r
		},
	})
}

func killTool(b *Board) tool.Tool {
	return def(tool.Def[killArgs]{
		Name: "vibe_kill", Label: "Stop a worker",
		Description: "Stop a running worker: its current model request and tool call are cancelled. What it had changed stays changed.",
		Principal:   func(a killArgs) string { return a.WorkerID },
		Title:       func(_ tool.Env, a killArgs, _ []string) string { return "Stop worker " + a.WorkerID },
		Check: func(a killArgs) string {
			if m := needID(a.WorkerID); m != "" {
				return "vibe_kill " + m
			}
			return ""
		},
		Run: func(_ context.Context, _ tool.Env, a killArgs) tool.Result {
			if err := b.kill(a.WorkerID); err != nil {
				return tool.Fail(sentence(err))
			}
			return tool.Result{Text: fmt.Sprintf("Worker %s stopped.", a.WorkerID)}
		},
	})
}

func listTool(b *Board) tool.Tool {
	return def(tool.Def[listArgs]{
		Name: "vibe_list", Label: "List the workers",
		Description: "List the workers: id, label, tier and model, status (running, done, failed, killed), time elapsed, and the first line of the last result.",
		Title:       func(tool.Env, listArgs, []string) string { return "List the workers" },
		Run: func(context.Context, tool.Env, listArgs) tool.Result {
			ws := b.List()
			if len(ws) == 0 {
				return tool.Result{Text: "No worker was spawned yet (vibe_spawn starts one)."}
			}
			var out strings.Builder
			for _, s := range ws {
				last := oneLine(s.Last, 200)
				if s.Status == "running" {
					last = "—"
				}
				fmt.Fprintf(&out, "%s [%s] tier %s (%s), %s, %s: %s\n", s.ID, s.Label, s.Tier, s.Model, s.Status, round(s.Elapsed), last)
			}
			return tool.Result{Text: tool.Bound(out.String(), b.opts.MaxOutput)}
		},
	})
}

func sentence(err error) string {
	s := err.Error()
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, ")") {
		s += "."
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
