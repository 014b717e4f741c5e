package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/llm"
)

const promptUsage = "usage: gantry prompt [--permission-mode MODE] [--provider NAME] [--model NAME] [--system-prompt TEXT] [--append-system-prompt TEXT] [--vibe] [--trust] [-C DIR] [--json]   (what a session here sends the model first: the system prompt, each declared tool's schema, the deferred tools; tokens estimated at four bytes each)"

// runPromptCmd is `gantry prompt`: the request a new session of the folder would send
// first — built by a preview session (nothing started, no model called) and read
// from App.NextRequest, the very request the loop sends — with an estimate of the
// tokens of each part.
func runPromptCmd(args []string) int {
	fs := flag.NewFlagSet("prompt", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	var o app.Options
	fs.StringVar(&o.PermissionMode, "permission-mode", "", "")
	fs.StringVar(&o.Provider, "provider", "", "")
	fs.StringVar(&o.Model, "model", "", "")
	fs.StringVar(&o.SystemPrompt, "system-prompt", "", "")
	fs.StringVar(&o.AppendSystemPrompt, "append-system-prompt", "", "")
	fs.BoolVar(&o.Vibe, "vibe", false, "")
	fs.BoolVar(&o.Trust, "trust", false, "")
	fs.StringVar(&o.Cwd, "cwd", "", "")
	fs.StringVar(&o.Cwd, "C", "", "")
	asJSON := fs.Bool("json", false, "")
	if code, ok := parseCommand(fs, args, "prompt", promptUsage); !ok {
		return code
	}
	o.Preview = true
	p, err := preview(o)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry prompt:", sentence(err))
		return exitCode(err)
	}
	if *asJSON {
		return printJSON("prompt", p)
	}
	p.print(os.Stdout)
	return 0
}

// firstRequest is what `gantry prompt` shows (and --json prints): the request's parts
// and their estimated tokens.
type firstRequest struct {
	Provider  string        `json:"provider"`
	Model     string        `json:"model"`
	Mode      string        `json:"permission_mode"`
	System    string        `json:"system"`
	Tools     []promptTool  `json:"tools"`
	Deferred  []promptTool  `json:"deferred"`
	Messages  []llm.Message `json:"messages"`
	MaxTokens int           `json:"max_tokens,omitempty"`
	Tokens    promptTokens  `json:"tokens"`
	// NotShown says what a started session may add that a preview cannot know.
	NotShown []string `json:"not_shown,omitempty"`
}

// promptTool is a tool's declaration as the request carries it, and its tokens.
type promptTool struct {
	llm.ToolSpec
	Tokens int `json:"tokens"`
}

type promptTokens struct {
	System   int `json:"system"`
	Tools    int `json:"tools"`
	Deferred int `json:"deferred"`
	Messages int `json:"messages"`
	Total    int `json:"total"`
}

// preview builds the session o describes without starting it, and reads the request
// its first model call would send.
func preview(o app.Options) (p firstRequest, err error) {
	a, err := app.New(o)
	if err != nil {
		return p, err
	}
	defer func() { err = errors.Join(err, a.Close()) }()
	entries, err := a.ToolCatalog()
	if err != nil {
		return p, err
	}
	req := a.NextRequest()
	p = firstRequest{Provider: a.Provider(), Model: req.Model, Mode: string(a.Mode()), System: req.System,
		Messages: req.Messages, MaxTokens: req.MaxTokens, Tools: []promptTool{}, Deferred: []promptTool{}}
	deferred := map[string]bool{}
	for _, e := range entries {
		if e.State == app.ToolDeferred {
			deferred[e.Tool.Name()] = true
		}
	}
	sent := map[string]bool{}
	for _, s := range req.Tools {
		sent[s.Name] = true
		t := promptTool{ToolSpec: s, Tokens: specTokens(s)}
		if deferred[s.Name] {
			p.Deferred = append(p.Deferred, t)
			continue
		}
		p.Tools = append(p.Tools, t)
	}
	for _, e := range entries { // deferred tools the request does not carry at all
		if s := e.Tool.Spec(); deferred[s.Name] && !sent[s.Name] {
			p.Deferred = append(p.Deferred, promptTool{ToolSpec: s, Tokens: specTokens(s)})
		}
	}
	p.Tokens.System = tokens(len(req.System))
	for _, t := range p.Tools {
		p.Tokens.Tools += t.Tokens
	}
	for _, t := range p.Deferred {
		p.Tokens.Deferred += t.Tokens
	}
	for _, m := range req.Messages {
		for _, b := range m.Content {
			p.Tokens.Messages += tokens(len(b.Text) + len(b.Input))
		}
	}
	p.Tokens.Total = p.Tokens.System + p.Tokens.Tools + p.Tokens.Messages
	if n := len(a.MCPConfigured()); n > 0 {
		p.NotShown = append(p.NotShown, fmt.Sprintf("the tools of the %d MCP server(s) configured, which a session starts", n))
	}
	if slices.ContainsFunc(a.Hooks(), func(e hook.Entry) bool { return e.Event == hook.SessionStart }) {
		p.NotShown = append(p.NotShown, "what the SessionStart hooks add to the system prompt, which a session runs")
	}
	return p, nil
}

// print writes the request for a person: each part under a heading with its tokens.
func (p firstRequest) print(w io.Writer) {
	model := p.Model
	if model == "" {
		model = "none configured"
	}
	fmt.Fprintf(w, "What a new session here sends first — provider %s, model %s, permission mode %s; tokens estimated at four bytes each (as /context counts):\n", p.Provider, model, p.Mode)
	fmt.Fprintf(w, "  system prompt %d, %d declared tool(s) %d, messages %d: %d in all; %d deferred tool(s) (%d if they were declared).\n",
		p.Tokens.System, len(p.Tools), p.Tokens.Tools, p.Tokens.Messages, p.Tokens.Total, len(p.Deferred), p.Tokens.Deferred)
	fmt.Fprintf(w, "\n═══ System prompt (%d tokens)\n%s\n", p.Tokens.System, strings.TrimRight(p.System, "\n"))
	fmt.Fprintf(w, "\n═══ Tools declared: %d (%d tokens)\n", len(p.Tools), p.Tokens.Tools)
	for _, t := range p.Tools {
		fmt.Fprintf(w, "\n─── %s (%d tokens)\n%s\n%s\n", t.Name, t.Tokens, strings.TrimRight(t.Description, "\n"), t.Schema)
	}
	if len(p.Deferred) > 0 {
		fmt.Fprintf(w, "\n═══ Tools deferred: %d (the model knows their names; a schema comes once searched for)\n", len(p.Deferred))
		for _, t := range p.Deferred {
			fmt.Fprintf(w, "%-18s %5d tokens  %s\n", t.Name, t.Tokens, firstSentence(t.Description))
		}
	}
	if len(p.Messages) > 0 {
		fmt.Fprintf(w, "\n═══ Messages (%d tokens)\n", p.Tokens.Messages)
		for _, m := range p.Messages {
			for _, b := range m.Content {
				fmt.Fprintf(w, "[%s %s] %s\n", m.Role, b.Type, strings.TrimRight(b.Text+string(b.Input), "\n"))
			}
		}
	}
	for _, s := range p.NotShown {
		fmt.Fprintf(w, "\nNot shown: %s.\n", s)
	}
}

// tokens estimates the tokens of n bytes of text, at four bytes a token: the estimate
// /context uses (no tokenizer is shipped).
func tokens(n int) int { return (n + 3) / 4 }
