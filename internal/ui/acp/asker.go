package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The option ids of a permission request.
const (
	optAllow        = "allow"
	optAllowAlways  = "allow-always"
	optReject       = "reject"
	optRejectAlways = "reject-always"
)

// errDismissed is the answer of a question the client cancelled.
var errDismissed = errors.New("the question was cancelled")

// knownID is the id the client knows a call by (subagents' calls are prefixed).
func (s *session) knownID(callID string) sdk.ToolCallId {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	if id, ok := s.calls[callID]; ok {
		return sdk.ToolCallId(id)
	}
	return sdk.ToolCallId(callID)
}

// ask sends one session/request_permission and returns the chosen option's id.
func (s *session) ask(ctx context.Context, call sdk.ToolCallUpdate, options []sdk.PermissionOption) (string, error) {
	resp, err := s.ag.conn.RequestPermission(ctx, sdk.RequestPermissionRequest{SessionId: sdk.SessionId(s.id), ToolCall: call, Options: options})
	switch {
	case ctx.Err() != nil:
		return "", ctx.Err()
	case err != nil:
		return "", fmt.Errorf("the editor did not answer the permission request: %w", err)
	case resp.Outcome.Cancelled != nil || resp.Outcome.Selected == nil:
		return "", errDismissed
	}
	return string(resp.Outcome.Selected.OptionId), nil
}

// AskPermission implements face.Asker with session/request_permission; "always"
// answers are remembered by the core's gate for the session.
func (s *session) AskPermission(ctx context.Context, req face.PermissionRequest) (face.Answer, error) {
	// What "always" remembers is the grant the gate suggested, named in the option.
	always := "Always allow " + alwaysLabel(req.Always)
	call := sdk.ToolCallUpdate{
		ToolCallId: s.knownID(req.CallID),
		Title:      sdk.Ptr(title(req.Call)),
		Kind:       sdk.Ptr(sdk.ToolKind(req.Kind)),
		Locations:  locations(req.Locations),
		RawInput:   rawJSON(req.Input),
	}
	if len(req.Preview.Changes) > 0 {
		call.Content = resultContent(tool.Result{Display: req.Preview})
	} else if req.Reason != "" {
		call.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("gantry asks because " + req.Reason + "."))}
	}
	id, err := s.ask(ctx, call, []sdk.PermissionOption{
		{OptionId: optAllow, Name: "Allow", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: optAllowAlways, Name: always, Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: optReject, Name: "Reject", Kind: sdk.PermissionOptionKindRejectOnce},
		{OptionId: optRejectAlways, Name: "Always reject", Kind: sdk.PermissionOptionKindRejectAlways},
	})
	if err != nil {
		return face.DenyOnce, err
	}
	switch id {
	case optAllow:
		return face.AllowOnce, nil
	case optAllowAlways:
		return face.AllowAlways, nil
	case optRejectAlways:
		return face.DenyAlways, nil
	case optReject:
		return face.DenyOnce, nil
	}
	return face.DenyOnce, fmt.Errorf("the editor answered with an option gantry did not offer (%q)", id)
}

// AskUser implements face.Asker. ACP v1 can offer a choice between options and
// nothing more, so each question with options and a single answer is asked in
// turn; free text and several answers at once cannot be asked in an editor.
func (s *session) AskUser(ctx context.Context, questions []face.Question) (face.UserAnswer, error) {
	for _, q := range questions {
		if len(q.Options) == 0 || q.MultiSelect {
			return face.UserAnswer{}, face.ErrNoHuman
		}
	}
	callID := tool.CallID(ctx)
	var ans face.UserAnswer
	for _, q := range questions {
		opts := make([]sdk.PermissionOption, 0, len(q.Options)+1)
		for i, o := range q.Options {
			opts = append(opts, sdk.PermissionOption{OptionId: sdk.PermissionOptionId("option-" + strconv.Itoa(i)), Name: o.Label, Kind: sdk.PermissionOptionKindAllowOnce})
		}
		opts = append(opts, sdk.PermissionOption{OptionId: "pass", Name: "Skip: let gantry decide", Kind: sdk.PermissionOptionKindRejectOnce})
		text := q.Question
		if q.Context != "" {
			text += "\n\n" + q.Context
		}
		for _, o := range q.Options {
			if o.Description != "" {
				text += "\n- " + o.Label + ": " + o.Description
			}
		}
		id, err := s.ask(ctx, sdk.ToolCallUpdate{
			ToolCallId: s.knownID(callID), Title: sdk.Ptr(oneLine(q.Question)), Kind: sdk.Ptr(sdk.ToolKindOther),
			Content: []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))},
		}, opts)
		if errors.Is(err, errDismissed) || id == "pass" {
			return face.UserAnswer{Passed: true}, nil
		}
		if err != nil {
			return face.UserAnswer{}, err
		}
		n, convErr := strconv.Atoi(strings.TrimPrefix(id, "option-"))
		if convErr != nil || n < 0 || n >= len(q.Options) {
			return face.UserAnswer{}, fmt.Errorf("the editor answered with an option gantry did not offer (%q)", id)
		}
		ans.Answers = append(ans.Answers, []string{q.Options[n].Label})
	}
	return ans, nil
}

// ApprovePlan implements face.Asker with a switch_mode permission request.
// What approving grants follows the plan as a block of its own, so that an editor
// shows the exact rules with it.
func (s *session) ApprovePlan(ctx context.Context, req face.PlanRequest) (face.PlanAnswer, error) {
	content := []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(req.Plan))}
	if lines := req.GrantLines(); len(lines) > 0 {
		content = append(content, sdk.ToolContent(sdk.TextBlock(strings.Join(lines, "\n"))))
	}
	id, err := s.ask(ctx, sdk.ToolCallUpdate{
		ToolCallId: s.knownID(tool.CallID(ctx)), Title: sdk.Ptr("Ready to code?"), Kind: sdk.Ptr(sdk.ToolKindSwitchMode),
		Content: content,
	}, []sdk.PermissionOption{
		{OptionId: "approve-accept-edits", Name: "Yes, and accept edits", Kind: sdk.PermissionOptionKindAllowAlways},
		{OptionId: "approve", Name: "Yes, and ask before edits", Kind: sdk.PermissionOptionKindAllowOnce},
		{OptionId: "keep-planning", Name: "No, keep planning", Kind: sdk.PermissionOptionKindRejectOnce},
	})
	switch {
	case errors.Is(err, errDismissed):
		return face.PlanAnswer{Approved: false, Feedback: "The user dismissed the plan without approving it."}, nil
	case err != nil:
		return face.PlanAnswer{}, err
	}
	switch id {
	case "approve-accept-edits":
		return face.PlanAnswer{Approved: true, Mode: permission.ModeAcceptEdits}, nil
	case "approve":
		return face.PlanAnswer{Approved: true}, nil
	}
	return face.PlanAnswer{Approved: false, Feedback: "The user wants to keep planning."}, nil
}
