package mcpserve

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/face"
)

// asker asks the person behind an MCP client, through elicitation when the client
// offers it; without it nobody is here to ask, and a call that needs permission is
// refused with the sentence print mode gives.
//
// The question of a client's call comes before anything of the call runs, so it is
// asked as the protocol's multi round-trip asks (SEP-2322): the call ends with the
// question as its input request, and the client calls again with the answer, which
// the gate then reads (the SDK does the round trip itself for clients of an older
// protocol, by eliciting). A question asked in the middle of a call — a relayed call
// of an eval cell — cannot be answered by a new round (the cell has run), so it is
// elicited at once where the client's protocol allows it, and refused where not.
type asker struct{ ss *mcp.ServerSession }

// roundTrip is what one invocation of a client's call knows of its question: the
// answer the client sent with it, and the question it needs answered.
type roundTrip struct {
	id     string            // the call's id in the session
	answer *mcp.ElicitResult // from the client's InputResponses
	need   *mcp.ElicitParams // set when the gate asked and there was no answer
}

type roundTripKey struct{}

// permissionInput is the key of a call's permission question among its input
// requests.
const permissionInput = "permission"

// errNeedInput ends a call whose question goes back to the client.
var errNeedInput = errors.New("the call needs the client's answer first")

// midCallElicitation reports whether the client's protocol lets a server send a
// request of its own while it serves one (before 2026-07-28).
func (a *asker) midCallElicitation() bool {
	p := a.ss.InitializeParams()
	return p != nil && p.ProtocolVersion < "2026-07-28"
}

// NoHuman reports that the client cannot be asked (face.Nobody reads it).
func (a *asker) NoHuman() bool { return !a.canElicit() }

func (a *asker) canElicit() bool {
	p := a.ss.InitializeParams()
	return p != nil && p.Capabilities != nil && p.Capabilities.Elicitation != nil
}

// The choices of a permission question, as the client's form shows them.
const (
	choiceOnce   = "Allow once"
	choiceAlways = "Allow always (this session)"
	choiceDeny   = "Deny"
)

// AskPermission asks whether a call may run: allow once, allow what "always" would
// keep for this session, or deny. A declined or dismissed form is a denial.
func (a *asker) AskPermission(ctx context.Context, req face.PermissionRequest) (face.Answer, error) {
	if !a.canElicit() {
		return face.DenyOnce, face.ErrNoHuman
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "gantry asks before it runs %s: %s", req.Name, req.Title)
	if req.Reason != "" {
		fmt.Fprintf(&msg, " (%s)", req.Reason)
	}
	msg.WriteString(".")
	if d := req.Preview.Diff; d != "" {
		msg.WriteString("\n\n" + bounded(d, 4000))
	}
	choices := []any{choiceOnce, choiceDeny}
	if req.Always.Label != "" {
		choices = []any{choiceOnce, choiceAlways, choiceDeny}
		fmt.Fprintf(&msg, "\n\n“Allow always” allows %s for the rest of this connection.", req.Always)
	}
	params := &mcp.ElicitParams{
		Mode:    "form",
		Message: msg.String(),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{"type": "string", "title": "Decision", "enum": choices},
			},
			"required": []string{"decision"},
		},
	}
	var res *mcp.ElicitResult
	if rt, ok := ctx.Value(roundTripKey{}).(*roundTrip); ok && rt.id == req.CallID {
		if rt.answer == nil {
			rt.need = params
			return face.DenyOnce, errNeedInput
		}
		res = rt.answer
	} else {
		if !a.midCallElicitation() {
			return face.DenyOnce, face.ErrNoHuman
		}
		var err error
		if res, err = a.ss.Elicit(ctx, params); err != nil {
			if ctx.Err() != nil {
				return face.DenyOnce, ctx.Err()
			}
			return face.DenyOnce, fmt.Errorf("asking the client: %w", err)
		}
	}
	if res.Action != "accept" {
		return face.DenyOnce, nil
	}
	switch res.Content["decision"] {
	case choiceOnce:
		return face.AllowOnce, nil
	case choiceAlways:
		return face.AllowAlways, nil
	}
	return face.DenyOnce, nil
}

// AskUser asks ask_user's questions as one form (gantry mcp does not serve ask_user,
// but a skill or hook may ask through the session): each question a field, its options
// an enumeration unless free text is allowed. A declined form passes.
func (a *asker) AskUser(ctx context.Context, qs []face.Question) (face.UserAnswer, error) {
	if !a.canElicit() || !a.midCallElicitation() {
		return face.UserAnswer{}, face.ErrNoHuman
	}
	props := map[string]any{}
	var required []string
	var msg strings.Builder
	msg.WriteString("gantry asks:")
	for i, q := range qs {
		key := fmt.Sprintf("q%d", i+1)
		field := map[string]any{"type": "string", "title": q.Question}
		if q.Context != "" {
			field["description"] = q.Context
		}
		if len(q.Options) > 0 && !q.AllowFreeText {
			var labels []any
			for _, o := range q.Options {
				labels = append(labels, o.Label)
			}
			field["enum"] = labels
		}
		props[key] = field
		required = append(required, key)
		fmt.Fprintf(&msg, "\n%d. %s", i+1, q.Question)
	}
	res, err := a.ss.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: msg.String(),
		RequestedSchema: map[string]any{"type": "object", "properties": props, "required": required}})
	if err != nil {
		if ctx.Err() != nil {
			return face.UserAnswer{}, ctx.Err()
		}
		return face.UserAnswer{}, fmt.Errorf("asking the client: %w", err)
	}
	if res.Action != "accept" {
		return face.UserAnswer{Passed: true}, nil
	}
	ans := face.UserAnswer{Answers: make([][]string, len(qs))}
	for i := range qs {
		if v, ok := res.Content[fmt.Sprintf("q%d", i+1)].(string); ok && v != "" {
			ans.Answers[i] = []string{v}
		}
	}
	return ans, nil
}

// ApprovePlan: plan mode is a conversation's, and gantry mcp serves no plan tools, so
// no plan (and none of its rules) is ever granted through it.
func (a *asker) ApprovePlan(context.Context, face.PlanRequest) (face.PlanAnswer, error) {
	return face.PlanAnswer{}, errors.Join(face.ErrNoHuman, errors.New("gantry mcp has no plan mode"))
}

func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "\n… (cut)"
}

// TrustFolder: gantry mcp connects no MCP servers of a folder and runs no question
// of its own before a client's call, so a folder's project files are not run.
func (a *asker) TrustFolder(context.Context, face.TrustRequest) (bool, error) {
	return false, errors.Join(face.ErrNoHuman, errors.New("gantry mcp does not trust folders"))
}
