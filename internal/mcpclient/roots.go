// The roots feature is deprecated by the 2026-07-28 protocol (SEP-2577) but remains
// in it, and servers of the earlier protocols — most of them — hide tools or refuse
// paths without it.
//lint:file-ignore SA1019 roots are deprecated, not gone, and servers still ask for them

package mcpclient

import (
	"net/url"
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/version"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// newClient is gantry's MCP client. With roots it announces the roots capability
// (without listChanged: a session's roots never change) and answers roots/list with
// them, as file:// URIs; without, it announces nothing. gantry offers no sampling or
// elicitation.
func newClient(roots []string) *mcp.Client {
	caps := &mcp.ClientCapabilities{}
	if len(roots) > 0 {
		caps.RootsV2 = &mcp.RootCapabilities{}
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "gantry", Version: version.String()}, &mcp.ClientOptions{Capabilities: caps})
	for _, dir := range roots {
		client.AddRoots(&mcp.Root{URI: fileURI(dir), Name: filepath.Base(dir)})
	}
	return client
}

// fileURI is the file:// URI of the absolute path p.
func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}
