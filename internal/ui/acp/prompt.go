package acp

import (
	"context"
	"encoding/base64"
	"fmt"
	"net/url"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Prompt implements sdk.Agent: one turn. A prompt that arrives while a turn runs
// cancels that turn first. Every update of the turn is sent before the answer; a
// cancelled turn answers stopReason "cancelled", never an error.
func (a *agent) Prompt(ctx context.Context, p sdk.PromptRequest) (sdk.PromptResponse, error) {
	defer a.track()()
	s, err := a.known(p.SessionId)
	if err != nil {
		return sdk.PromptResponse{}, err
	}
	text, attached, err := promptContent(p.Prompt)
	if err != nil {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if strings.TrimSpace(text) == "" && len(attached) == 0 {
		return sdk.PromptResponse{}, sdk.NewInvalidParams(map[string]any{"error": "the prompt is empty: send at least one text, image or resource block"})
	}
	if s.waitOpen(ctx) != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	turn, done, ok := s.startTurn(ctx)
	if !ok {
		return sdk.PromptResponse{}, notFound(fmt.Sprintf("session %s was closed", s.id))
	}
	defer done()
	if turn.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	s.applyModel()
	if reply, handled := s.command(turn, text); handled {
		if reply != "" {
			s.send(sdk.UpdateAgentMessageText(reply))
		}
		if turn.Err() != nil {
			return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
		}
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	}
	if s.app.HistoryLen() == 0 && !s.app.Resumed() {
		s.app.SetTitle(text)
		if t := strings.TrimSpace(oneLine(text)); t != "" {
			s.send(sdk.SessionUpdate{SessionInfoUpdate: &sdk.SessionSessionInfoUpdate{SessionUpdate: "session_info_update", Title: sdk.Ptr(sessionTitle(t))}})
		}
	}
	expanded, notes := s.app.ExpandPrompt(text) // "/skill input" too
	for _, n := range notes {
		s.send(sdk.UpdateAgentMessageText("_gantry: " + n + "_\n\n"))
	}
	end := s.app.Run(turn, expanded, attached)
	s.offerCommands() // the turn may have trusted the folder, or written a command
	switch end.StopReason {
	case "cancelled":
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	case "end_turn":
		return sdk.PromptResponse{StopReason: sdk.StopReasonEndTurn}, nil
	case "max_turns":
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTurnRequests}, nil
	case "max_tokens":
		return sdk.PromptResponse{StopReason: sdk.StopReasonMaxTokens}, nil
	case "blocked":
		s.send(sdk.UpdateAgentMessageText("_gantry: " + end.Err.Error() + "_"))
		return sdk.PromptResponse{StopReason: sdk.StopReasonRefusal}, nil
	}
	if turn.Err() != nil {
		return sdk.PromptResponse{StopReason: sdk.StopReasonCancelled}, nil
	}
	msg := "the turn ended with an error"
	if end.Err != nil {
		msg = end.Err.Error()
	}
	if end.StoreErr != nil {
		// Said in the conversation too: a client may show an error's data nowhere.
		s.send(sdk.UpdateAgentMessageText("_gantry: " + msg + "_"))
	}
	return sdk.PromptResponse{}, sdk.NewInternalError(map[string]any{"error": msg})
}

// sessionTitle is the title of a session named after its first prompt.
func sessionTitle(s string) string {
	if r := []rune(s); len(r) > 80 {
		return string(r[:79]) + "…"
	}
	return s
}

// promptContent turns a prompt's content blocks into the prompt's text and the
// blocks attached after it: images, and the text of embedded resources.
func promptContent(blocks []sdk.ContentBlock) (string, []llm.Block, error) {
	var text strings.Builder
	var attached []llm.Block
	for i, b := range blocks {
		switch {
		case b.Text != nil:
			text.WriteString(b.Text.Text)
		case b.Image != nil:
			data, err := base64.StdEncoding.DecodeString(b.Image.Data)
			if err != nil {
				return "", nil, fmt.Errorf("prompt[%d]: the image's data is not base64: %v", i, err)
			}
			attached = append(attached, llm.Block{Type: llm.BlockImage, Images: []llm.Image{{MediaType: b.Image.MimeType, Data: data}}})
		case b.ResourceLink != nil:
			fmt.Fprintf(&text, "\n[The user attached %s: %s]\n", b.ResourceLink.Name, linkPath(b.ResourceLink.Uri))
		case b.Resource != nil:
			block, err := resourceBlock(b.Resource.Resource)
			if err != nil {
				return "", nil, fmt.Errorf("prompt[%d]: %v", i, err)
			}
			attached = append(attached, block)
		case b.Audio != nil:
			return "", nil, fmt.Errorf("prompt[%d]: gantry does not take audio (its promptCapabilities say so)", i)
		default:
			return "", nil, fmt.Errorf("prompt[%d]: a content block of an unknown type", i)
		}
	}
	return text.String(), attached, nil
}

// resourceBlock is an embedded resource as the model reads it: a text resource in a
// tagged block, an image as an image, other binary content named only.
func resourceBlock(r sdk.EmbeddedResourceResource) (llm.Block, error) {
	switch {
	case r.TextResourceContents != nil:
		t := r.TextResourceContents
		return llm.Block{Type: llm.BlockText, Text: fmt.Sprintf("<context source=%q>\n%s\n</context>", linkPath(t.Uri), t.Text)}, nil
	case r.BlobResourceContents != nil:
		b := r.BlobResourceContents
		mime := ""
		if b.MimeType != nil {
			mime = *b.MimeType
		}
		if strings.HasPrefix(mime, "image/") {
			data, err := base64.StdEncoding.DecodeString(b.Blob)
			if err != nil {
				return llm.Block{}, fmt.Errorf("the resource's blob is not base64: %v", err)
			}
			return llm.Block{Type: llm.BlockImage, Images: []llm.Image{{MediaType: mime, Data: data}}}, nil
		}
		return llm.Block{Type: llm.BlockText, Text: fmt.Sprintf("[The user attached %s (%s, binary, %d bytes of base64); read it with a tool if needed.]", linkPath(b.Uri), mime, len(b.Blob))}, nil
	}
	return llm.Block{}, fmt.Errorf("an embedded resource with neither text nor blob")
}

// linkPath shows a file:// URI as its path, other URIs as they are.
func linkPath(uri string) string {
	if u, err := url.Parse(uri); err == nil && u.Scheme == "file" {
		return u.Path
	}
	return uri
}
