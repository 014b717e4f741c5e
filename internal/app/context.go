package app

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/agent"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// ContextPart is one part of what fills the model's context window, in tokens
// (estimated at four characters a token: no tokenizer is shipped).
type ContextPart struct {
	Name   string
	Tokens int
}

// Context says what the next request would fill the context window with: the system
// prompt (its memory files apart), the declared tools' schemas, the conversation's
// messages and its tool results; and the window's size.
func (a *App) Context() (parts []ContextPart, window int) {
	est := func(n int) int { return (n + 3) / 4 }
	req := a.agent.NextRequest()
	system := req.System
	memory := len(a.memory.Text)
	parts = append(parts, ContextPart{"system prompt", est(len(system) - min(memory, len(system)))})
	parts = append(parts, ContextPart{"memory files", est(memory)})
	schemas := 0
	for _, spec := range req.Tools {
		if !spec.Defer { // a deferred tool is not in the context until it is found
			schemas += len(spec.Name) + len(spec.Description) + len(spec.Schema)
		}
	}
	parts = append(parts, ContextPart{"tools' schemas", est(schemas)})
	msgs, results := 0, 0
	for _, m := range a.agent.History() {
		for _, b := range m.Content {
			n := len(b.Text) + len(b.Input)
			for _, im := range b.Images {
				n += len(im.Data) / 3 // an image's tokens grow with its pixels; its bytes stand for them
			}
			if b.Type == llm.BlockToolResult {
				results += n
			} else {
				msgs += n
			}
		}
	}
	parts = append(parts, ContextPart{"messages", est(msgs)}, ContextPart{"tool results", est(results)})
	return parts, a.agent.Config.ContextWindow
}

// Markdown is the session's transcript as Markdown: prompts, answers, tool calls with
// their inputs and bounded outputs.
func (a *App) Markdown() (string, error) {
	msgs, err := a.Transcript()
	if err != nil {
		return "", err
	}
	var b strings.Builder
	info, _ := a.sess.Info()
	fmt.Fprintf(&b, "# %s\n\nSession `%s` in `%s`, model %s.\n\n", first(info.Title, "gantry session"), a.sess.ID(), a.opts.Cwd, a.Model())
	for _, m := range msgs {
		for _, blk := range m.Content {
			switch {
			case blk.Type == llm.BlockText && m.Role == llm.RoleUser:
				fmt.Fprintf(&b, "## › %s\n\n", strings.ReplaceAll(strings.TrimSpace(blk.Text), "\n", "\n> "))
			case blk.Type == llm.BlockText:
				fmt.Fprintf(&b, "%s\n\n", strings.TrimSpace(blk.Text))
			case blk.Type == llm.BlockToolUse:
				input := string(blk.Input)
				var v any
				if json.Unmarshal(blk.Input, &v) == nil {
					if pretty, err := json.MarshalIndent(v, "", "  "); err == nil {
						input = string(pretty)
					}
				}
				fmt.Fprintf(&b, "**%s**\n\n```json\n%s\n```\n\n", blk.ToolName, input)
			case blk.Type == llm.BlockToolResult:
				text := blk.Text
				if r := []rune(text); len(r) > 2000 {
					text = string(r[:1000]) + fmt.Sprintf("\n… (%d characters cut) …\n", len(r)-2000) + string(r[len(r)-1000:])
				}
				lang := ""
				if strings.HasPrefix(text, "--- ") || strings.Contains(text, "\n@@ ") {
					lang = "diff"
				}
				fence := "```"
				for strings.Contains(text, fence) {
					fence += "`"
				}
				label := "result"
				if blk.IsError {
					label = "error"
				}
				fmt.Fprintf(&b, "<details><summary>%s</summary>\n\n%s%s\n%s\n%s\n\n</details>\n\n", label, fence, lang, text, fence)
			}
		}
	}
	return b.String(), nil
}

// Shell runs a command the person typed (the terminal's !command) as the model's bash
// runs one — the same deny rules, hooks, exec supervisor, PID namespace and sandbox; not
// asked about, since the person asked for it — shown as a call of its own, and keeps the
// command and its output for the model's next prompt.
func (a *App) Shell(ctx context.Context, command string) tool.Result {
	a.mu.Lock()
	a.shellN++
	id := fmt.Sprintf("shell_%d", a.shellN)
	a.mu.Unlock()
	input, _ := json.Marshal(map[string]any{"command": command})
	r := a.agent.Call(agent.AsPerson(ctx), id, "bash", input)
	note := fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stdout>%s</bash-stdout>", command, tool.Bound(r.Text, 20000))
	if r.IsError {
		note = fmt.Sprintf("<bash-input>%s</bash-input>\n<bash-stderr>%s</bash-stderr>", command, tool.Bound(r.Text, 20000))
	}
	a.mu.Lock()
	a.shellNotes = append(a.shellNotes, note)
	a.mu.Unlock()
	return r
}

// NextRequest is the request the session's next model call would send, as it is now
// (before the next prompt): the system prompt, the tools as declared, the messages.
func (a *App) NextRequest() llm.Request { return a.agent.NextRequest() }

// ToolsView is what the next request does with the tools: the ones it declares (their
// schemas in the context), the ones it defers (found by a tool search, listed in the
// system prompt) and, of those, the ones found so far.
type ToolsView struct {
	Declared, Deferred, Found []string
	// Search says who finds the deferred tools: "the API's tool search" or
	// "tool_search".
	Search string
}

// Tools says what the next request declares, defers and has found of the tools.
func (a *App) Tools() ToolsView {
	d := a.agent.Declaration()
	v := ToolsView{Search: "tool_search"}
	for _, s := range d.Specs {
		if s.Defer {
			v.Search = "the API's tool search"
		}
	}
	for _, t := range d.Declared {
		v.Declared = append(v.Declared, t.Name())
	}
	for _, t := range d.Deferred {
		v.Deferred = append(v.Deferred, t.Name())
	}
	for _, t := range d.Found {
		v.Found = append(v.Found, t.Name())
	}
	return v
}
