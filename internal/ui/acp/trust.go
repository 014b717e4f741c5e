package acp

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
)

// trustCallID is the tool call that carries the question of a folder's trust.
const trustCallID = "gantry-trust-folder"

// TrustInTurn implements face.TrustInTurn: an editor's permission requests belong to
// a prompt, so the folder's trust is asked at the session's first one.
func (s *session) TrustInTurn() bool { return true }

// TrustFolder implements face.Asker: a tool call of its own that shows what the
// folder's project files would run, and a session/request_permission on it. An editor
// that cannot answer it (the request fails) is nobody to ask: the files are not run.
func (s *session) TrustFolder(ctx context.Context, req face.TrustRequest) (bool, error) {
	lines := req.Lines()
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(strings.Join(lines, "\n")))}
	s.send(sdk.StartToolCall(trustCallID, lines[0], sdk.WithStartKind(sdk.ToolKindExecute),
		sdk.WithStartStatus(sdk.ToolCallStatusPending), sdk.WithStartContent(content)))
	id, err := s.ask(ctx, sdk.ToolCallUpdate{ToolCallId: trustCallID}, []sdk.PermissionOption{
		{OptionId: "trust", Name: "Trust the folder and run them", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: "distrust", Name: "Do not run them", Kind: sdk.PermissionOptionKindRejectOnce},
	})
	yes := err == nil && id == "trust"
	status := sdk.ToolCallStatusFailed
	if yes {
		status = sdk.ToolCallStatusCompleted
	}
	s.send(sdk.UpdateToolCall(trustCallID, sdk.WithUpdateStatus(status)))
	switch {
	case errors.Is(err, errDismissed):
		return false, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	case err != nil:
		return false, errors.Join(face.ErrNoHuman, err)
	}
	return yes, nil
}
