package mcpclient

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

// maxImageBytes bounds an image passed on to the model; the providers refuse larger.
const maxImageBytes = 5 << 20

// imageTypes are the image media types the providers take.
var imageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// toResult turns a tool's answer into a gantry result: text parts joined by newlines,
// images as image blocks, embedded resources' text inline, what cannot be shown named
// in one line, and isError kept.
func toResult(name string, r *mcp.CallToolResult) tool.Result {
	if r == nil {
		return tool.Fail(fmt.Sprintf("%s failed: the server sent an empty answer.", name))
	}
	var (
		texts  []string
		images []llm.Image
	)
	addImage := func(what, mediaType string, data []byte) {
		switch {
		case !imageTypes[mediaType]:
			texts = append(texts, fmt.Sprintf("[%s of type %q, %d bytes, not shown: the model takes PNG, JPEG, GIF and WEBP images]", what, mediaType, len(data)))
		case len(data) > maxImageBytes:
			texts = append(texts, fmt.Sprintf("[%s of type %q, %d bytes, not shown: larger than %d bytes]", what, mediaType, len(data), maxImageBytes))
		default:
			images = append(images, llm.Image{MediaType: mediaType, Data: data})
		}
	}
	for _, c := range r.Content {
		switch c := c.(type) {
		case *mcp.TextContent:
			texts = append(texts, c.Text)
		case *mcp.ImageContent:
			addImage("image", c.MIMEType, c.Data)
		case *mcp.AudioContent:
			texts = append(texts, fmt.Sprintf("[audio of type %q, %d bytes, not shown]", c.MIMEType, len(c.Data)))
		case *mcp.ResourceLink:
			texts = append(texts, fmt.Sprintf("[resource %s: %s]", c.Name, c.URI))
		case *mcp.EmbeddedResource:
			texts = append(texts, embedded(c.Resource, addImage)...)
		}
	}
	if len(r.Content) == 0 && r.StructuredContent != nil {
		if b, err := json.Marshal(r.StructuredContent); err == nil {
			texts = append(texts, string(b))
		}
	}
	res := tool.Result{Text: strings.Join(texts, "\n"), IsError: r.IsError, Images: images}
	if res.IsError && strings.TrimSpace(res.Text) == "" {
		res.Text = fmt.Sprintf("%s reported an error without saying what went wrong.", name)
	}
	if len(images) > 0 {
		res.Display.Note = fmt.Sprintf("%d image(s)", len(images))
	}
	return res
}

// embedded renders an embedded resource: its text, an image, or a line naming binary
// content that cannot be shown.
func embedded(r *mcp.ResourceContents, addImage func(what, mediaType string, data []byte)) []string {
	switch {
	case r == nil:
		return nil
	case r.Text != "":
		return []string{r.Text}
	case len(r.Blob) > 0 && strings.HasPrefix(r.MIMEType, "image/"):
		addImage("image "+r.URI, r.MIMEType, r.Blob)
		return nil
	case len(r.Blob) > 0:
		return []string{fmt.Sprintf("[resource %s of type %q, %d bytes of binary data, not shown]", r.URI, r.MIMEType, len(r.Blob))}
	}
	return nil
}
