package acp

import (
	"encoding/json"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// A new file's diff goes out with "oldText": null; other messages are unchanged.
func TestNullOldText(t *testing.T) {
	u := sdk.UpdateToolCall("c1", sdk.WithUpdateContent([]sdk.ToolCallContent{
		sdk.ToolDiffContent("/p/new.txt", "new\n"),
		sdk.ToolDiffContent("/p/old.txt", "b\n", "a\n"),
	}))
	b, err := json.Marshal(sdk.SessionNotification{SessionId: "s", Update: u})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Update struct {
			Content []map[string]any `json:"content"`
		} `json:"update"`
	}
	if err := json.Unmarshal(withNullOldText(b), &got); err != nil {
		t.Fatal(err)
	}
	c := got.Update.Content
	if v, ok := c[0]["oldText"]; !ok || v != nil {
		t.Errorf("new file: %v", c[0])
	}
	if c[1]["oldText"] != "a\n" {
		t.Errorf("existing file: %v", c[1])
	}
	plain := []byte(`{"jsonrpc":"2.0","id":1,"result":{"stopReason":"end_turn"}}` + "\n")
	if string(withNullOldText(plain)) != string(plain) {
		t.Error("a message without diffs was rewritten")
	}
	odd := []byte(`{"text":"the string \"type\":\"diff\" in prose","n":12345678901234567890}` + "\n")
	if string(withNullOldText(odd)) != string(odd) {
		t.Errorf("rewrote %s", withNullOldText(odd))
	}
}
