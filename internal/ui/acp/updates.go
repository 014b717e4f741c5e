package acp

import (
	"encoding/base64"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// handle turns one core event into session updates. It is the app's sink.
func (s *session) handle(e face.Event) {
	switch e := e.(type) {
	case face.TextDelta:
		if e.Text != "" {
			s.send(sdk.UpdateAgentMessageText(e.Text))
		}
	case face.ThinkingDelta:
		if e.Text != "" {
			s.send(sdk.UpdateAgentThoughtText(e.Text))
		}
	case face.Retry:
		s.dropDrafts()
		s.send(sdk.UpdateAgentMessageText(fmt.Sprintf("\n\n_(the model request failed: %s; retrying, attempt %d)_\n\n", e.Reason, e.Attempt)))
	case face.Notice:
		s.send(sdk.UpdateAgentMessageText("\n\n_gantry: " + e.Text + "_\n\n"))
	case face.ExecBlocked:
		s.send(sdk.UpdateAgentMessageText("\n\n_gantry: " + e.Text() + "_\n\n"))
	case face.ToolDrafting:
		s.toolDrafting(e)
	case face.ToolStarted:
		s.toolStarted("", "", e)
	case face.ToolRunning:
		s.toolRunning("", e)
	case face.ToolOutput:
		s.toolOutput("", e)
	case face.ToolFinished:
		s.toolFinished("", e)
	case face.TodoList:
		s.send(planUpdate(e.Items))
	case face.ModeChanged:
		s.tellMode(e.Mode)
	case face.ModelChanged:
		s.mu.Lock()
		s.model, s.window = e.Model, e.ContextWindow
		s.mu.Unlock()
	case face.TurnUsage:
		s.usage(e)
	case face.FromSubagent:
		s.fromSubagent(e)
	case face.TurnEnded:
		s.dropDrafts()
	}
}

// fromSubagent shows a subagent's tool calls as calls of the session, with their own
// ids and the subagent's label in their titles; its text is in the agent tool's result.
func (s *session) fromSubagent(e face.FromSubagent) {
	prefix := "sub-" + e.ID + "-"
	label := e.Label + ": "
	switch ev := e.Event.(type) {
	case face.ToolStarted:
		s.toolStarted(prefix, label, ev)
	case face.ToolRunning:
		s.toolRunning(prefix, ev)
	case face.ToolOutput:
		s.toolOutput(prefix, ev)
	case face.ToolFinished:
		s.toolFinished(prefix, ev)
	}
}

func (s *session) toolStarted(prefix, label string, e face.ToolStarted) {
	id := prefix + e.CallID
	s.sendMu.Lock()
	if s.calls == nil {
		s.calls = map[string]string{}
	}
	s.calls[e.CallID] = id
	s.sendMu.Unlock()
	if prefix == "" && s.wasDrafted(e.CallID) {
		s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateTitle(label+title(e.Call)),
			sdk.WithUpdateKind(sdk.ToolKind(e.Kind)),
			sdk.WithUpdateLocations(locations(e.Locations)),
			sdk.WithUpdateRawInput(rawJSON(e.Input))))
		return
	}
	s.send(sdk.StartToolCall(sdk.ToolCallId(id), label+title(e.Call),
		sdk.WithStartKind(sdk.ToolKind(e.Kind)),
		sdk.WithStartStatus(sdk.ToolCallStatusPending),
		sdk.WithStartLocations(locations(e.Locations)),
		sdk.WithStartRawInput(rawJSON(e.Input))))
}

func (s *session) toolRunning(prefix string, e face.ToolRunning) {
	s.send(sdk.UpdateToolCall(sdk.ToolCallId(prefix+e.CallID), sdk.WithUpdateStatus(sdk.ToolCallStatusInProgress)))
}

// toolOutput shows the tail of a running call's output (at most ten updates a second)
// as its content, until the result replaces it; a command that runs in the client's
// terminal shows that terminal instead.
func (s *session) toolOutput(prefix string, e face.ToolOutput) {
	id := prefix + e.CallID
	s.sendMu.Lock()
	terminal := s.terms[id]
	s.sendMu.Unlock()
	if terminal || e.Tail == "" {
		return
	}
	s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateContent([]sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(e.Tail))})))
}

func (s *session) toolFinished(prefix string, e face.ToolFinished) {
	id := prefix + e.CallID
	status := sdk.ToolCallStatusCompleted
	if e.Result.IsError || e.Refused {
		status = sdk.ToolCallStatusFailed
	}
	s.sendMu.Lock()
	terminal := s.terms[id]
	delete(s.terms, id)
	s.sendMu.Unlock()
	opts := []sdk.ToolCallUpdateOpt{sdk.WithUpdateStatus(status), sdk.WithUpdateRawOutput(rawOutput(e.Result))}
	if l := e.Result.Display.Location; l != nil {
		// Where the result points (a debugger's stop) replaces the call's locations.
		loc := sdk.ToolCallLocation{Path: l.Path}
		if l.Line > 0 {
			loc.Line = &l.Line
		}
		opts = append(opts, sdk.WithUpdateLocations([]sdk.ToolCallLocation{loc}))
	}
	if !terminal { // a terminal call keeps its terminal as its content
		opts = append(opts, sdk.WithUpdateContent(resultContent(e.Result)))
	}
	s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), opts...))
}

// resultContent is what the client shows of a result: the diffs of the files it
// changed, else its text and images.
func resultContent(r tool.Result) []sdk.ToolCallContent {
	out := []sdk.ToolCallContent{}
	if len(r.Display.Changes) > 0 && !r.IsError {
		for _, c := range r.Display.Changes {
			if c.Created {
				out = append(out, sdk.ToolDiffContent(c.Path, c.New))
			} else {
				out = append(out, sdk.ToolDiffContent(c.Path, c.New, c.Old))
			}
		}
		if r.Display.Note != "" {
			// The diffs stand for the text, but not for what the tool says of them (a
			// change staged, not written).
			out = append(out, sdk.ToolContent(sdk.TextBlock(r.Display.Note)))
		}
		if len(r.Display.Diagnostics) > 0 {
			// The diffs stand for the text, but not for what the write broke.
			out = append(out, sdk.ToolContent(sdk.TextBlock(tool.DiagnosticsHeading+"\n"+strings.Join(r.Display.Diagnostics, "\n"))))
		}
		return out
	}
	if r.Display.Hidden {
		return out
	}
	if r.Text != "" {
		out = append(out, sdk.ToolContent(sdk.TextBlock(r.Text)))
	}
	for _, img := range r.Images {
		out = append(out, sdk.ToolContent(sdk.ImageBlock(base64.StdEncoding.EncodeToString(img.Data), img.MediaType)))
	}
	return out
}

func rawOutput(r tool.Result) map[string]any {
	out := map[string]any{"output": r.Text}
	if r.IsError {
		out["isError"] = true
	}
	return out
}

func planUpdate(items []face.TodoItem) sdk.SessionUpdate {
	entries := make([]sdk.PlanEntry, 0, len(items))
	for _, it := range items {
		st := sdk.PlanEntryStatusPending
		switch it.Status {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: it.Content, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return sdk.UpdatePlan(entries...)
}

// usage reports how full the context is and what the session cost.
func (s *session) usage(e face.TurnUsage) {
	u := e.Usage
	used := int(u.InputTokens + u.CacheReadTokens + u.CacheWriteTokens + u.OutputTokens)
	s.mu.Lock()
	size := s.window
	if size <= 0 {
		s.mu.Unlock()
		return // a usage_update needs the window's size
	}
	if e.Elsewhere { // a subagent's or a summary's: the context is as full as it was
		used = s.contextUsed
	} else {
		s.contextUsed = used
	}
	s.mu.Unlock()
	up := &sdk.SessionUsageUpdate{SessionUpdate: "usage_update", Used: used, Size: size}
	if e.SessionCost > 0 {
		up.Cost = &sdk.Cost{Amount: e.SessionCost, Currency: "USD"}
	}
	s.send(sdk.SessionUpdate{UsageUpdate: up})
}
