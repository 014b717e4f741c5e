package acp

import (
	"slices"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
)

// toolDrafting shows a call the model is still writing: the first draft is the call's
// tool_call, pending, with its title and rawInput so far; the next ones update them as
// its arguments grow. Its locations wait for its start (a path half written would send
// an editor that follows the agent to a file that is not there). The call's
// ToolStarted then updates the same entry instead of starting another (see
// toolStarted).
func (s *session) toolDrafting(e face.ToolDrafting) {
	if e.CallID == "" {
		return
	}
	s.sendMu.Lock()
	if s.drafted == nil {
		s.drafted = map[string]bool{}
	}
	known := s.drafted[e.CallID]
	s.drafted[e.CallID] = true
	s.sendMu.Unlock()
	if !known {
		s.send(sdk.StartToolCall(sdk.ToolCallId(e.CallID), title(e.Call),
			sdk.WithStartKind(sdk.ToolKind(e.Kind)),
			sdk.WithStartStatus(sdk.ToolCallStatusPending),
			sdk.WithStartRawInput(rawJSON(e.Input))))
		return
	}
	s.send(sdk.UpdateToolCall(sdk.ToolCallId(e.CallID),
		sdk.WithUpdateTitle(title(e.Call)),
		sdk.WithUpdateRawInput(rawJSON(e.Input))))
}

// wasDrafted says whether the call id was shown while the model wrote it, and forgets
// it: its start updates that entry.
func (s *session) wasDrafted(id string) bool {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	known := s.drafted[id]
	delete(s.drafted, id)
	return known
}

// dropDrafts ends the calls shown while the model wrote them that never started (a
// retried request's, an answer cut off): failed, as v1 has no cancelled status.
func (s *session) dropDrafts() {
	s.sendMu.Lock()
	ids := make([]string, 0, len(s.drafted))
	for id := range s.drafted {
		ids = append(ids, id)
	}
	clear(s.drafted)
	s.sendMu.Unlock()
	slices.Sort(ids)
	for _, id := range ids {
		s.send(sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(sdk.ToolCallStatusFailed)))
	}
}
