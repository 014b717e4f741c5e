// Package compacttool is the compact tool: the model asks for its conversation to be
// summarised and replaced by the summary before its next step.
package compacttool

import (
	"context"
	_ "embed"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Compactor compacts the conversation before the next model request.
type Compactor interface {
	RequestCompaction(focus string)
}

type args struct {
	Focus string `json:"focus,omitempty" jsonschema_description:"What the summary should keep in detail (optional)."`
}

//go:embed compact.md
var description string

// Tool returns the compact tool.
func Tool(c Compactor) tool.Tool {
	return tool.New(tool.Def[args]{
		Conversation: true,
		Name:         "compact", Description: description, Level: tool.LevelRead, Kind: tool.KindThink, Icon: "🧹",
		Title:     func(tool.Env, args, []string) string { return "Compact the conversation" },
		Principal: func(a args) string { return a.Focus },
		Run: func(_ context.Context, _ tool.Env, a args) tool.Result {
			c.RequestCompaction(a.Focus)
			return tool.Result{Text: "The conversation will be summarised before your next step: the goal, decisions, files, todo list, tasks and last errors are kept. Go on with the work afterwards."}
		},
	})
}
