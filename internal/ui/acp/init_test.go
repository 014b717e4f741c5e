package acp

import (
	"context"
	"encoding/base64"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// initialize tells what gantry does: protocol 1, load, images and embedded context,
// MCP over HTTP besides stdio, list/close/resume, one auth method.
func TestInitialize(t *testing.T) {
	h := start(t, scripted.New(), sdk.ClientCapabilities{})
	r, err := h.conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber})
	if err != nil {
		t.Fatal(err)
	}
	c := r.AgentCapabilities
	switch {
	case r.ProtocolVersion != 1:
		t.Errorf("protocol %d", r.ProtocolVersion)
	case !c.LoadSession || !c.PromptCapabilities.Image || !c.PromptCapabilities.EmbeddedContext || c.PromptCapabilities.Audio:
		t.Errorf("capabilities %+v", c)
	case !c.McpCapabilities.Http || c.McpCapabilities.Sse:
		t.Errorf("mcp %+v", c.McpCapabilities)
	case c.SessionCapabilities.List == nil || c.SessionCapabilities.Close == nil || c.SessionCapabilities.Resume == nil:
		t.Errorf("session capabilities %+v", c.SessionCapabilities)
	case len(r.AuthMethods) != 1 || r.AuthMethods[0].Agent == nil || r.AuthMethods[0].Agent.Id != authMethodID:
		t.Errorf("auth methods %+v", r.AuthMethods)
	case r.AgentInfo == nil || r.AgentInfo.Name != "gantry":
		t.Errorf("agent info %+v", r.AgentInfo)
	}
}

// A prompt's images, embedded resources and links reach the model; audio is refused.
func TestPromptContent(t *testing.T) {
	m := scripted.New(scripted.Step{Text: "seen"})
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	png := []byte("\x89PNG\r\n\x1a\nfake")
	mime := "text/x-go"
	resp, err := h.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{
		sdk.TextBlock("look at these"),
		sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png"),
		sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///p/main.go", Text: "package main", MimeType: &mime}}),
		sdk.ResourceLinkBlock("notes.md", "file:///p/notes.md"),
	}})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("prompt: %v %v", resp, err)
	}
	user := m.Requests()[0].Messages[0]
	var text string
	var image bool
	for _, b := range user.Content {
		switch b.Type {
		case llm.BlockText:
			text += b.Text + "\n"
		case llm.BlockImage:
			image = len(b.Images) == 1 && string(b.Images[0].Data) == string(png) && b.Images[0].MediaType == "image/png"
		}
	}
	if !image {
		t.Error("the image did not reach the model")
	}
	for _, want := range []string{"look at these", `<context source="/p/main.go">`, "package main", "notes.md: /p/notes.md"} {
		if !strings.Contains(text, want) {
			t.Errorf("the model's prompt lacks %q:\n%s", want, text)
		}
	}
	_, err = h.conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: id, Prompt: []sdk.ContentBlock{sdk.AudioBlock("AAAA", "audio/wav")}})
	if err == nil || !strings.Contains(err.Error(), "audio") {
		t.Errorf("audio: %v", err)
	}
}
