package mcpclient

import (
	"context"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// maxPrompts bounds the prompts listed of one server.
const maxPrompts = 500

// Prompt is a prompt a server offers: the person runs it as /mcp__server__name.
type Prompt struct {
	Server, Name, Description string
	// Args are its arguments, in the server's order.
	Args []PromptArg
}

// PromptArg is one argument of a prompt.
type PromptArg struct {
	Name, Description string
	Required          bool
}

// Prompts lists the prompts of the servers reached that offer any, following the
// listing's pages. A server whose listing fails is a sentence in problems.
func (s *Set) Prompts(ctx context.Context) (prompts []Prompt, problems []string) {
	for _, c := range s.conns {
		if c.session == nil {
			continue
		}
		if caps := c.session.InitializeResult().Capabilities; caps == nil || caps.Prompts == nil {
			continue
		}
		n := 0
		for p, err := range c.session.Prompts(ctx, nil) {
			if err != nil {
				problems = append(problems, fmt.Sprintf("MCP server %q: its prompts could not be listed: %v.", c.name, err))
				break
			}
			if p == nil || p.Name == "" {
				continue
			}
			if n++; n > maxPrompts {
				problems = append(problems, fmt.Sprintf("MCP server %q lists more than %d prompts; the rest are left out.", c.name, maxPrompts))
				break
			}
			pr := Prompt{Server: c.name, Name: p.Name, Description: p.Description}
			for _, a := range p.Arguments {
				if a != nil {
					pr.Args = append(pr.Args, PromptArg{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			prompts = append(prompts, pr)
		}
	}
	return prompts, problems
}

// GetPrompt asks server for its prompt name with args and returns the text of its
// messages, one after the other (what is not text is named in brackets).
func (s *Set) GetPrompt(ctx context.Context, server, name string, args map[string]string) (string, error) {
	for _, c := range s.conns {
		if c.name != server || c.session == nil {
			continue
		}
		r, err := c.session.GetPrompt(ctx, &mcp.GetPromptParams{Name: name, Arguments: args})
		if err != nil {
			return "", fmt.Errorf("MCP server %q did not give its prompt %s: %w", server, name, err)
		}
		var parts []string
		for _, m := range r.Messages {
			if m == nil {
				continue
			}
			switch ct := m.Content.(type) {
			case *mcp.TextContent:
				parts = append(parts, ct.Text)
			case *mcp.EmbeddedResource:
				if ct.Resource != nil && ct.Resource.Text != "" {
					parts = append(parts, ct.Resource.Text)
				} else {
					parts = append(parts, "[a resource]")
				}
			case nil:
			default:
				parts = append(parts, fmt.Sprintf("[%T content, not shown]", ct))
			}
		}
		return strings.Join(parts, "\n\n"), nil
	}
	return "", fmt.Errorf("MCP server %q is not connected", server)
}
