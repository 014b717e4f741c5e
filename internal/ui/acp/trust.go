package acp

import (
	"context"
	"errors"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
)

// TrustFolder implements face.Asker with a session/request_permission that shows what
// the folder's project files would run. An editor that cannot answer it (the request
// fails) is nobody to ask: the folder's files are not run.
func (s *session) TrustFolder(ctx context.Context, req face.TrustRequest) (bool, error) {
	id, err := s.ask(ctx, sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId("trust-folder"), Title: sdk.Ptr("Trust the folder " + req.Folder + "?"), Kind: sdk.Ptr(sdk.ToolKindExecute),
		Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(strings.Join(req.Lines(), "\n")))},
	}, []sdk.PermissionOption{
		{OptionId: "trust", Name: "Trust the folder and run them", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: "distrust", Name: "Do not run them", Kind: sdk.PermissionOptionKindRejectOnce},
	})
	switch {
	case errors.Is(err, errDismissed):
		return false, nil
	case ctx.Err() != nil:
		return false, ctx.Err()
	case err != nil:
		return false, errors.Join(face.ErrNoHuman, err)
	}
	return id == "trust", nil
}
