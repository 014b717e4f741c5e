package plan

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed enter_plan_mode.md
var enterDescription string

// enterArgs is empty: enter_plan_mode takes no argument.
type enterArgs struct{}

// Enter returns enter_plan_mode, which switches the session to plan mode.
func (w *Switch) Enter() tool.Tool {
	return tool.New(tool.Def[enterArgs]{
		Conversation: true,
		Name:         "enter_plan_mode",
		Aliases:      []string{"EnterPlanMode"},
		Description:  enterDescription,
		Level:        tool.LevelRead,
		Kind:         tool.KindSwitchMode,
		Icon:         "📋",
		Title:        func(tool.Env, enterArgs, []string) string { return "Plan before changing anything" },
		Run: func(context.Context, tool.Env, enterArgs) tool.Result {
			left, switched := w.enter()
			if !switched {
				return tool.Result{Text: "The session is already in plan mode: only read tools are available. Explore, then call exit_plan_mode with your plan for the user's approval."}
			}
			return tool.Result{Text: fmt.Sprintf("The session is now in plan mode (it was in %s mode): only read tools are available until the plan is approved. Explore the code and settle the approach, then call exit_plan_mode with the whole plan for the user's approval.", left)}
		},
	})
}
