package acp

import (
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/desktop/desktoptest"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// A screenshot is an image content block of the call.
func TestScreenshotIsAnImageBlock(t *testing.T) {
	display := desktoptest.StartX(t, "640x480x24")
	t.Setenv("DISPLAY", display)
	t.Setenv("DBUS_SESSION_BUS_ADDRESS", "unix:path=/nonexistent")
	m := scripted.New(
		scripted.Step{Calls: []scripted.Call{{ID: "c1", Name: "computer", Input: `{"action":"screenshot","som":false}`}}},
		scripted.Step{Text: "Done."},
	)
	h := start(t, m, sdk.ClientCapabilities{})
	id := h.newSession()
	if _, err := h.conn.SetSessionMode(t.Context(), sdk.SetSessionModeRequest{SessionId: id, ModeId: "yolo"}); err != nil {
		t.Fatal(err)
	}
	if resp := h.prompt(id, "look"); resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("stop reason %q", resp.StopReason)
	}
	f := finalUpdate(h.client.snapshot(), "c1")
	if f == nil || len(f.Content) != 2 || f.Content[1].Content == nil {
		t.Fatalf("content: %+v", f)
	}
	if img := f.Content[1].Content.Content.Image; img == nil || img.MimeType != "image/png" || len(img.Data) < 100 {
		t.Errorf("image block: %+v", f.Content[1].Content.Content)
	}
}
