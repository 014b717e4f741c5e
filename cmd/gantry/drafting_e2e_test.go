package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// A write the model streams in pieces (the fake server speaks Anthropic's stream) is
// tool_drafting lines in stream-json that grow — its file, then the lines of its
// content — before its tool_started, the last one whole.
func TestStreamJSONDraftsGrowBeforeTheCallStarts(t *testing.T) {
	content := strings.Repeat("a line of the new file\n", 40)
	body, _ := json.Marshal(content)
	input := `{"path":"notes.txt","content":` + string(body) + `}`
	_, e := fakeModel(t, fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("w1", "write_file", input)}}, say("Written."))
	r := gantry(t, t.TempDir(), e, "-p", "write notes", "--permission-mode", "yolo", "--output-format", "stream-json")
	if r.code != 0 {
		t.Fatalf("exit %d\nstdout:\n%s\nstderr:\n%s", r.code, r.stdout, r.stderr)
	}
	var drafts []map[string]any
	started := false
	for _, ev := range streamEvents(t, r.stdout) {
		switch ev["type"] {
		case "tool_drafting":
			if started {
				t.Fatalf("a draft after tool_started: %v", ev)
			}
			drafts = append(drafts, ev)
		case "tool_started":
			started = true
		}
	}
	if !started || len(drafts) < 2 {
		t.Fatalf("drafts %v, started %v", drafts, started)
	}
	first, last := drafts[0], drafts[len(drafts)-1]
	if first["id"] != "w1" || first["bytes"].(float64) >= last["bytes"].(float64) || last["whole"] != true ||
		last["lines"] != float64(40) || !strings.Contains(last["title"].(string), "notes.txt") {
		t.Errorf("first %v\nlast %v", first, last)
	}
}
