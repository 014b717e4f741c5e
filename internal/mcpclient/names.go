package mcpclient

import (
	"fmt"
	"hash/fnv"
	"strings"
)

// maxNameLen is the longest tool name providers accept.
const maxNameLen = 64

// sanitize replaces every character outside [A-Za-z0-9_-] with '_'.
func sanitize(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			return r
		}
		return '_'
	}, s)
}

// namer gives each MCP tool a distinct gantry name.
type namer struct{ used map[string]bool }

// name returns mcp__<server>__<tool>, sanitised. A name longer than maxNameLen, or one
// already given (two names that differ only in characters sanitize replaced), is cut
// and ends with a hash of the original pair, so it stays distinct and stable.
func (n *namer) name(server, toolName string) string {
	if n.used == nil {
		n.used = map[string]bool{}
	}
	name := "mcp__" + sanitize(server) + "__" + sanitize(toolName)
	for salt := 0; len(name) > maxNameLen || n.used[name]; salt++ {
		h := fnv.New32a()
		fmt.Fprintf(h, "%s\x00%s\x00%d", server, toolName, salt)
		suffix := fmt.Sprintf("_%08x", h.Sum32())
		base := "mcp__" + sanitize(server) + "__" + sanitize(toolName)
		name = base[:min(len(base), maxNameLen-len(suffix))] + suffix
	}
	n.used[name] = true
	return name
}
