package printmode

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// schemaFile is the schema of json and stream-json, as the repository ships it.
const schemaFile = "../../../docs/stream-json.schema.json"

// loadSchema reads and resolves the schema.
func loadSchema(t *testing.T) (*jsonschema.Schema, *jsonschema.Resolved) {
	t.Helper()
	data, err := os.ReadFile(schemaFile)
	if err != nil {
		t.Fatal(err)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		t.Fatalf("%s: %v", schemaFile, err)
	}
	return &s, rs
}

// schemaEvents are the kinds of line the schema's oneOf lists, as Events names them.
func schemaEvents(t *testing.T, s *jsonschema.Schema) []string {
	t.Helper()
	var kinds []string
	for _, branch := range s.OneOf {
		def := s.Defs[strings.TrimPrefix(branch.Ref, "#/$defs/")]
		if def == nil || def.Properties["type"] == nil || def.Properties["type"].Const == nil {
			t.Fatalf("the oneOf branch %q is not an event with a constant type", branch.Ref)
		}
		kind := (*def.Properties["type"].Const).(string)
		if sub := def.Properties["subtype"]; sub != nil && sub.Const != nil {
			kind += "/" + (*sub.Const).(string)
		}
		kinds = append(kinds, kind)
	}
	return kinds
}

// everyEvent is one face event of each kind stream-json writes (and a subagent's).
func everyEvent() []face.Event {
	c := tool.Call{Name: "edit_file", Title: "edit_file: a.go", Principal: "a.go", Level: tool.LevelWrite, Kind: tool.KindEdit, Locations: []string{"/w/a.go"}}
	in := json.RawMessage(`{"path":"a.go"}`)
	return []face.Event{
		face.SessionStarted{SessionID: "s1", Provider: "anthropic", Model: "m", Mode: permission.ModeDefault, Cwd: "/w", Tools: []string{"bash"}},
		face.ModeChanged{Mode: permission.ModePlan, Previous: permission.ModeDefault},
		face.ModelChanged{Model: "m2"},
		face.ThinkingDelta{Text: "hmm"},
		face.TextDelta{Text: "Let me edit."},
		face.Retry{Attempt: 1, Reason: "overloaded"},
		face.Notice{Text: "a warning"},
		face.Notice{Text: "an information", Info: true},
		face.ToolDrafting{CallID: "1", Call: c, Input: json.RawMessage(`{}`), Bytes: 2, Lines: 1},
		face.ToolDrafting{CallID: "1", Call: c, Input: in, Bytes: 15, Lines: 1, Whole: true},
		face.ToolStarted{CallID: "1", Call: c, Input: in, Note: "a hook rewrote the arguments"},
		face.ToolRunning{CallID: "1", Name: "edit_file"},
		face.ToolFinished{CallID: "1", Call: c, Result: tool.Result{Text: "edited", Images: []llm.Image{{}},
			Display: tool.Display{Diff: "--- a\n+++ b\n", Diagnostics: []string{"a.go:1: undefined: x"}}}, Duration: time.Millisecond},
		face.ToolStarted{CallID: "2", Call: tool.Call{Name: "bash", Level: tool.LevelExec, Kind: tool.KindExecute}, Input: json.RawMessage(`not json`)},
		face.ExecBlocked{CallID: "2", Rule: "bash:rm .*", Command: "rm x"},
		face.ToolFinished{CallID: "2", Call: tool.Call{Name: "bash"}, Refused: true, Result: tool.Result{Text: "refused", IsError: true}},
		face.ToolFinished{CallID: "3", Call: tool.Call{Name: "bash"}, Cancelled: true, Result: tool.Result{Text: "cancelled", IsError: true}},
		face.TodoList{Items: []face.TodoItem{{ID: "1", Content: "edit", Status: "in_progress"}}},
		face.TodoList{},
		face.TurnUsage{Model: "m", Usage: llm.Usage{InputTokens: 10, OutputTokens: 5, CacheReadTokens: 3}, Cost: 0.01, SessionUsage: llm.Usage{InputTokens: 10, OutputTokens: 5}, SessionCost: 0.01},
		face.FromSubagent{ID: "a1", Label: "explore", Event: face.TextDelta{Text: "a subagent's words"}},
		face.StepEnded{Step: 1, Counters: face.Counters{FileOps: 1}},
		face.TurnEnded{StopReason: "error", Steps: 1, Err: errors.New("boom"), StoreErr: errors.New("disk full")},
	}
}

// TestSchemaListsThePrintersEvents: the schema lists exactly the events of the table
// (Events), and the printer writes exactly those: none the schema lacks, none it
// cannot write.
func TestSchemaListsThePrintersEvents(t *testing.T) {
	s, _ := loadSchema(t)
	listed := schemaEvents(t, s)
	if a, b := slices.Sorted(slices.Values(listed)), slices.Sorted(slices.Values(Events)); !slices.Equal(a, b) {
		t.Errorf("the schema lists %v, the printer's table %v", a, b)
	}
	var b bytes.Buffer
	p := New(&b, Options{Format: FormatStreamJSON})
	for _, e := range everyEvent() {
		p.Handle(e)
	}
	p.Finish(face.TurnEnded{StopReason: "end_turn"})
	written := map[string]bool{}
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatalf("%q: %v", l, err)
		}
		kind := m["type"].(string)
		if kind == "system" {
			kind += "/" + m["subtype"].(string)
		}
		written[kind] = true
	}
	for _, k := range Events {
		if !written[k] {
			t.Errorf("the printer wrote no %s", k)
		}
		delete(written, k)
	}
	if len(written) > 0 {
		t.Errorf("the printer wrote kinds the table lacks: %v", written)
	}
	def := s.Defs["result"].Properties["subtype"]
	var enum []string
	for _, v := range def.Enum {
		enum = append(enum, v.(string))
	}
	if a, b := slices.Sorted(slices.Values(enum)), slices.Sorted(slices.Values(Subtypes)); !slices.Equal(a, b) {
		t.Errorf("the schema's result subtypes %v, the printer's %v", a, b)
	}
	if v := s.Defs["schema_version"].Const; v == nil || *v != SchemaVersion {
		t.Errorf("the schema's version %v, the printer's %s", v, SchemaVersion)
	}
}

// TestEveryEventFollowsTheSchema: every line of stream-json and the object of json
// validate; a line with a field the schema does not list does not.
func TestEveryEventFollowsTheSchema(t *testing.T) {
	_, rs := loadSchema(t)
	for _, f := range []Format{FormatStreamJSON, FormatJSON} {
		for _, end := range []face.TurnEnded{{StopReason: "end_turn", Text: "done"}, {StopReason: "max_turns", Err: errors.New("stopped")},
			{StopReason: "refusal"}, {StopReason: "cancelled"}, {StopReason: "end_turn", StoreErr: errors.New("full")}, {StopReason: "pause_turn"}} {
			var b bytes.Buffer
			p := New(&b, Options{Format: f})
			for _, e := range everyEvent() {
				p.Handle(e)
			}
			p.FinishAs(end, Outcome{})
			for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n") {
				var v any
				if err := json.Unmarshal([]byte(l), &v); err != nil {
					t.Fatal(err)
				}
				if err := rs.Validate(v); err != nil {
					t.Errorf("%s: %s\n%v", f, l, err)
				}
			}
		}
	}
	var b bytes.Buffer
	New(&b, Options{Format: FormatJSON}).FinishAs(face.TurnEnded{StopReason: "cancelled"}, Outcome{Subtype: SubtypeNeedsPerson, Error: "asked"})
	var v map[string]any
	if err := json.Unmarshal(b.Bytes(), &v); err != nil || v["subtype"] != SubtypeNeedsPerson || v["error"] != "asked" || v["is_error"] != true {
		t.Fatalf("an outcome's result: %s %v", b.String(), err)
	}
	if err := rs.Validate(v); err != nil {
		t.Error(err)
	}
	v["unlisted"] = 1
	if rs.Validate(v) == nil {
		t.Error("a result with a field the schema does not list validates")
	}
	if rs.Validate(map[string]any{"type": "text_delta", "text": "x", "extra": true}) == nil {
		t.Error("an event with a field the schema does not list validates")
	}
}
