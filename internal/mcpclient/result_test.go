package mcpclient

import (
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func TestResultOfEveryContentKind(t *testing.T) {
	size := int64(3)
	r := toResult("mcp__s__t", &mcp.CallToolResult{Content: []mcp.Content{
		&mcp.TextContent{Text: "one"},
		&mcp.AudioContent{MIMEType: "audio/wav", Data: []byte("abc")},
		&mcp.ResourceLink{Name: "doc", URI: "file:///doc.md", Size: &size},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.bin", MIMEType: "application/octet-stream", Blob: []byte{1, 2}}},
		&mcp.EmbeddedResource{Resource: &mcp.ResourceContents{URI: "file:///a.png", MIMEType: "image/png", Blob: []byte("\x89PNG")}},
		&mcp.ImageContent{MIMEType: "image/svg+xml", Data: []byte("<svg/>")},
		&mcp.EmbeddedResource{},
		nil,
	}})
	want := strings.Join([]string{
		"one",
		`[audio of type "audio/wav", 3 bytes, not shown]`,
		"[resource doc: file:///doc.md]",
		`[resource file:///a.bin of type "application/octet-stream", 2 bytes of binary data, not shown]`,
		`[image of type "image/svg+xml", 6 bytes, not shown: the model takes PNG, JPEG, GIF and WEBP images]`,
	}, "\n")
	if r.IsError || r.Text != want || len(r.Images) != 1 || r.Images[0].MediaType != "image/png" {
		t.Errorf("got %+v\nwant text %s", r, want)
	}

	r = toResult("mcp__s__t", &mcp.CallToolResult{StructuredContent: map[string]int{"n": 1}})
	if r.Text != `{"n":1}` {
		t.Errorf("structured: %+v", r)
	}
	r = toResult("mcp__s__t", &mcp.CallToolResult{IsError: true})
	if !r.IsError || r.Text != "mcp__s__t reported an error without saying what went wrong." {
		t.Errorf("silent error: %+v", r)
	}
	if r := toResult("mcp__s__t", nil); !r.IsError {
		t.Errorf("nil: %+v", r)
	}
}

func TestInputSchemaFallsBackToAnEmptyObject(t *testing.T) {
	for _, v := range []any{nil, "a string", []int{1}, func() {}} {
		if got := string(inputSchema(v)); got != string(emptySchema) {
			t.Errorf("%T: %s", v, got)
		}
	}
	if got := string(inputSchema(map[string]any{"type": "object"})); got != `{"type":"object"}` {
		t.Errorf("object: %s", got)
	}
}
