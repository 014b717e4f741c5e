package mcpclient

import (
	"context"
	"strings"
	"testing"
)

// A server's prompts are listed with their arguments and give their text; a server
// not connected is an error naming it.
func TestPrompts(t *testing.T) {
	set := connect(t, Options{}, echoServer("echo"))
	ctx := context.Background()
	prompts, problems := set.Prompts(ctx)
	if len(problems) != 0 || len(prompts) != 1 {
		t.Fatalf("prompts %+v, problems %v", prompts, problems)
	}
	p := prompts[0]
	if p.Server != "echo" || p.Name != "review" || p.Description != "Reviews a file." || len(p.Args) != 2 || !p.Args[0].Required || p.Args[1].Name != "focus" {
		t.Errorf("prompt %+v", p)
	}
	text, err := set.GetPrompt(ctx, "echo", "review", map[string]string{"file": "a.go", "focus": "bugs"})
	if err != nil || text != "Review a.go for bugs." {
		t.Errorf("GetPrompt = %q, %v", text, err)
	}
	if _, err := set.GetPrompt(ctx, "other", "review", nil); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("a server not connected: %v", err)
	}
}
