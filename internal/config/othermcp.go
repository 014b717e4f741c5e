package config

import (
	"fmt"
	"path/filepath"
	"slices"
)

// otherSource is one file of another tool that defines MCP servers: project says it
// is a project's file (its servers wait for the folder's trust).
type otherSource struct {
	project bool
	read    func() (servers []jsonServer, problems, skipped []string)
}

// loadOtherMCP adds the MCP servers of the other tools' files, below Claude Code's
// and gantry's (a server of the same name defined there wins): the user's files
// first (opencode's, Crush's, Codex's), then the project's in the same order, whose
// servers are held back in a folder not trusted.
// What a file cannot give is in MCPProblems; a server it turns off is in MCPSkipped.
func (c *Config) loadOtherMCP() {
	userCodex := codexUserConfig()
	var sources []otherSource
	jsonFiles := func(project, crush bool, paths ...string) {
		for _, p := range paths {
			sources = append(sources, otherSource{project, func() ([]jsonServer, []string, []string) { return otherJSONServers(p, crush) }})
		}
	}
	jsonFiles(false, false, opencodeUserFiles()...)
	jsonFiles(false, true, crushUserFiles()...)
	sources = append(sources, otherSource{false, func() ([]jsonServer, []string, []string) { return codexServers(userCodex) }})
	var user []string // a project file that is a user's file too is read once, as the user's
	user = append(append(user, opencodeUserFiles()...), crushUserFiles()...)
	in := func(rels []string) []string {
		var out []string
		for _, r := range rels {
			if p := filepath.Join(c.root, r); !slices.Contains(user, p) {
				out = append(out, p)
			}
		}
		return out
	}
	jsonFiles(true, false, in(OpencodeProjectFiles)...)
	jsonFiles(true, true, in(CrushProjectFiles)...)
	if p := filepath.Join(c.root, CodexProjectConfig); p != userCodex {
		sources = append(sources, otherSource{true, func() ([]jsonServer, []string, []string) { return codexServers(p) }})
	}
	for _, src := range sources {
		servers, problems, skipped := src.read()
		c.MCPProblems = append(c.MCPProblems, problems...)
		c.MCPSkipped = append(c.MCPSkipped, skipped...)
		for _, s := range servers {
			if src.project && c.hold {
				c.holdServerFrom(s.name, s.server)
				continue
			}
			c.addMCPServer(s.name, s.server)
			c.otherMCP = append(c.otherMCP, s)
		}
	}
}

// noteShadowedMCP says, in MCPSkipped, which servers of the other tools' files were
// replaced by a server of the same name from a file that wins; called once every
// file is read.
func (c *Config) noteShadowedMCP() {
	for _, s := range c.otherMCP {
		if now, ok := c.MCPServers[s.name]; ok && now.From != s.server.From {
			c.MCPSkipped = append(c.MCPSkipped, fmt.Sprintf("%s (%s): the server of that name from %s is used", s.name, s.server.From, now.From))
		}
	}
	c.otherMCP = nil
}
