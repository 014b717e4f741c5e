package app

// MCPServer is an MCP server whose tools a session offers: a command to start
// (stdio) or a URL (streamable HTTP).
type MCPServer struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
}
