package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// loadSession parses the recorded requests 5 to 14 of one API's session.
func loadSession(t *testing.T, api string) []*request {
	t.Helper()
	var reqs []*request
	for i := 5; i <= 14; i++ {
		body, err := os.ReadFile(filepath.Join("testdata", "session-"+api, fmt.Sprintf("%03d.json", i)))
		if err != nil {
			t.Fatal(err)
		}
		r, err := parseRequest("", body)
		if err != nil {
			t.Fatalf("request %d: %v", i, err)
		}
		reqs = append(reqs, r)
	}
	return reqs
}

func TestParseRecordedRequests(t *testing.T) {
	for _, api := range []string{apiAnthropic, apiResponses, apiChat} {
		t.Run(api, func(t *testing.T) {
			r := loadSession(t, api)[0]
			if r.API != api {
				t.Fatalf("detected %s", r.API)
			}
			var names []string
			for _, d := range r.Tools {
				names = append(names, d.Name)
				if d.Deferred || d.Server {
					t.Errorf("%s: deferred %v, server %v", d.Name, d.Deferred, d.Server)
				}
			}
			if got := strings.Join(names, ","); got != "read_file,write_file" {
				t.Errorf("tools %s", got)
			}
			if len(r.System) != 1 || !strings.Contains(string(r.System[0]), "You are gantry") {
				t.Errorf("system %q", r.System)
			}
			if len(r.Messages) == 0 || strings.Contains(string(r.Messages[0]), "You are gantry") {
				t.Errorf("messages start with %.80s", r.Messages)
			}
			// What the parts leave out of the body is the punctuation of the lists
			// that hold them.
			_, tools := r.declared()
			left := r.Size - bytesOf(r.System) - tools - bytesOf(r.Messages) - r.Other
			if r.Other <= 0 || left < 0 || left > 2*(len(r.Tools)+len(r.Messages)+len(r.System))+4 {
				t.Errorf("parts do not add up to the body: other %d, %d bytes left", r.Other, left)
			}
		})
	}
}

// The recorded session breaks its prefix where the binary of the start of issue 30
// did: entering plan mode drops write_file, leaving it adds it back, and the next
// day's date changes the system prompt. cache_control markers move on every request
// of the Anthropic session and must not count as breaks.
func TestPrefixBreaksOfRecordedSession(t *testing.T) {
	want := []string{"6→7 tools removed write_file", "9→10 tools added write_file", "12→13 system"}
	for _, api := range []string{apiAnthropic, apiResponses, apiChat} {
		t.Run(api, func(t *testing.T) {
			reqs := loadSession(t, api)
			var got []string
			prev, err := reqs[0].prefix()
			if err != nil {
				t.Fatal(err)
			}
			for i := 1; i < len(reqs); i++ {
				cur, err := reqs[i].prefix()
				if err != nil {
					t.Fatal(err)
				}
				if br := comparePrefix(prev, cur); br != nil {
					got = append(got, strings.TrimSpace(fmt.Sprintf("%d→%d %s %s", i+4, i+5, br.Where, br.Detail)))
					if br.Lost <= 0 || br.Lost > reqs[i-1].Size {
						t.Errorf("%d→%d: lost %d bytes of a %d-byte request", i+4, i+5, br.Lost, reqs[i-1].Size)
					}
				}
				prev = cur
			}
			if strings.Join(got, "; ") != strings.Join(want, "; ") {
				t.Errorf("breaks:\n got %q\nwant %q", got, want)
			}
		})
	}
}

func TestToolResultsOfRecordedRequests(t *testing.T) {
	for _, api := range []string{apiAnthropic, apiResponses, apiChat} {
		t.Run(api, func(t *testing.T) {
			got, err := toolResults(loadSession(t, api)[0])
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(got["s1c1"], "package main") || !strings.Contains(got["s1c2"], "module example.com/demo") {
				t.Errorf("results %q", got)
			}
		})
	}
}

func TestCacheControlIsIgnored(t *testing.T) {
	a, err := parseRequest("/v1/messages", []byte(`{"system":"s","messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseRequest("/v1/messages", []byte(`{"system":"s","messages":[{"role":"user","content":[{"text":"hi","type":"text"}]},{"role":"assistant","content":"yes"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := a.prefix()
	pb, _ := b.prefix()
	if br := comparePrefix(pa, pb); br != nil {
		t.Errorf("a moved marker broke the prefix at %s", br.Where)
	}
	if br := comparePrefix(pb, pa); br == nil || br.Where != "message 2" {
		t.Errorf("a dropped message is not a break at message 2: %+v", br)
	}
}

func TestDeferredAndServerTools(t *testing.T) {
	body := `{"messages":[],"tools":[
		{"name":"bash","input_schema":{}},
		{"name":"lsp","input_schema":{},"defer_loading":true},
		{"type":"tool_search_tool_bm25_20251119","name":"tool_search_tool_bm25"}]}`
	r, err := parseRequest("/v1/messages", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if n, _ := r.declared(); n != 2 {
		t.Errorf("declared %d, want bash and the tool search", n)
	}
	if n, _ := r.deferred(); n != 1 {
		t.Errorf("deferred %d, want lsp", n)
	}
	if !r.Tools[2].Server || r.Tools[2].Name != "tool_search_tool_bm25" {
		t.Errorf("server tool read as %+v", r.Tools[2])
	}
	seg, _ := r.prefix()
	if len(seg) != 2 {
		t.Errorf("a deferred tool is in the prefix: %d segments", len(seg))
	}
	r, err = parseRequest("/v1/responses", []byte(`{"input":[],"tools":[{"type":"tool_search"},{"type":"function","name":"glob","defer_loading":true}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if r.Tools[0].Name != "tool_search" || !r.Tools[0].Server || !r.Tools[1].Deferred {
		t.Errorf("responses tools read as %+v", r.Tools)
	}
}

// codex declares its tools in an input item of type additional_tools, in namespaces,
// after which come its developer messages (the system) and the conversation.
func TestCodexAdditionalTools(t *testing.T) {
	body := `{"input":[
		{"type":"additional_tools","role":"developer","tools":[
			{"type":"namespace","name":"functions","tools":[{"type":"custom","name":"exec"},{"type":"function","name":"wait","parameters":{}}]},
			{"type":"function","name":"sleep","parameters":{},"defer_loading":true}]},
		{"type":"message","role":"developer","content":[{"type":"input_text","text":"You are Codex."}]},
		{"type":"message","role":"user","content":[{"type":"input_text","text":"hello"}]}]}`
	r, err := parseRequest("/v1/responses", []byte(body))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, d := range r.Tools {
		names = append(names, d.Name)
	}
	if got := strings.Join(names, ","); got != "functions.exec,functions.wait,sleep" {
		t.Errorf("tools %s", got)
	}
	if n, _ := r.deferred(); n != 1 {
		t.Errorf("deferred %d", n)
	}
	if len(r.System) != 1 || !strings.Contains(string(r.System[0]), "You are Codex.") || len(r.Messages) != 1 {
		t.Errorf("system %s, messages %s", r.System, r.Messages)
	}
}

// A message's text as a string and as one text block (with a marker) is one prompt;
// so is Anthropic's system as a string and as a block.
func TestTextFormsAreOnePrompt(t *testing.T) {
	a, err := parseRequest("/v1/messages", []byte(`{"system":"be brief","messages":[{"role":"user","content":"hi"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	b, err := parseRequest("/v1/messages", []byte(`{"system":[{"type":"text","text":"be brief","cache_control":{"type":"ephemeral"}}],"messages":[{"role":"user","content":[{"type":"text","text":"hi","cache_control":{"type":"ephemeral"}}]},{"role":"assistant","content":"hello"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pa, _ := a.prefix()
	pb, _ := b.prefix()
	if br := comparePrefix(pa, pb); br != nil {
		t.Errorf("broke at %s", br.Where)
	}
	c, err := parseRequest("/v1/messages", []byte(`{"system":"be brief","messages":[{"role":"user","content":"hi there"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	pc, _ := c.prefix()
	if br := comparePrefix(pa, pc); br == nil || br.Where != "message 1" {
		t.Errorf("a changed message is not a break at message 1: %+v", br)
	}
}

func TestReadBodies(t *testing.T) {
	var out strings.Builder
	if err := readBodies(&out, filepath.Join("testdata", "session-anthropic")); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "| Anthropic Messages | 10 | 3 |") || !strings.Contains(out.String(), "| read_file |") {
		t.Errorf("output:\n%s", out.String())
	}
}
