package acp

import (
	"context"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

// preview is the diff a permission request for an edit shows (app.Preview); other
// calls show none.
func (s *session) preview(ctx context.Context, req face.PermissionRequest) []sdk.ToolCallContent {
	d := s.app.Preview(ctx, req.Tool, req.Input, req.Locations)
	if len(d.Changes) == 0 {
		return nil
	}
	return resultContent(tool.Result{Display: d})
}
