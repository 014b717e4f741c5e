package config

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
)

// PluginLSPFile is a plugin's file of language servers, at its root, in Claude
// Code's shape: {"go": {"command": "gopls", "extensionToLanguage": {".go": "go"}}}.
const PluginLSPFile = ".lsp.json"

// lspKeysUsed are the keys of a Claude Code language server gantry maps onto a row
// of its server table; the others (env, settings, workspaceFolder, startupTimeout,
// restartOnCrash, …) it cannot express, and names in Skipped.
var lspKeysUsed = []string{"command", "args", "extensionToLanguage", "initializationOptions", "transport"}

// readLSP takes .lsp.json at the plugin's root when there is one, and the
// manifest's lspServers (a path or list of paths to such files, or the servers
// themselves), as rows of gantry's server table with PluginRootVar replaced.
func (p *Plugin) readLSP(mpath string, raw json.RawMessage) error {
	srcs, err := p.partFiles(mpath, PluginLSPFile, "lspServers", raw)
	if err != nil {
		return err
	}
	for _, s := range srcs {
		var servers map[string]map[string]json.RawMessage
		if err := json.Unmarshal(s.data, &servers); err != nil {
			return &FileError{Path: s.path, Line: jsonLine(s.data, err), Msg: fmt.Sprintf("is not a file of language servers: %v", err)}
		}
		for _, name := range sortedKeys(servers) {
			row, skipped := p.lspRow(name, servers[name])
			p.Skipped = append(p.Skipped, skipped...)
			if row == nil {
				continue
			}
			if p.LSPServers == nil {
				p.LSPServers = map[string]PluginLSPServer{}
			}
			p.LSPServers[name] = *row
		}
	}
	return nil
}

// lspRow maps one Claude Code language server onto a row of gantry's table; nil
// when it cannot be (said in the sentences returned, with the keys not used).
func (p *Plugin) lspRow(name string, keys map[string]json.RawMessage) (*PluginLSPServer, []string) {
	var s struct {
		Command    string            `json:"command"`
		Args       []string          `json:"args"`
		Extensions map[string]string `json:"extensionToLanguage"`
		Init       map[string]any    `json:"initializationOptions"`
		Transport  string            `json:"transport"`
	}
	data, _ := json.Marshal(keys) // a map of raw JSON values always encodes
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, []string{fmt.Sprintf("its language server %s was left out: %v", name, err)}
	}
	switch {
	case s.Command == "":
		return nil, []string{fmt.Sprintf("its language server %s was left out: it has no command", name)}
	case len(s.Extensions) == 0:
		return nil, []string{fmt.Sprintf("its language server %s was left out: it has no extensionToLanguage", name)}
	case s.Transport != "" && s.Transport != "stdio":
		return nil, []string{fmt.Sprintf("its language server %s was left out: gantry speaks to language servers on stdio, not %s", name, s.Transport)}
	}
	expand := func(v string) string { return strings.ReplaceAll(v, PluginRootVar, p.Root) }
	row := &PluginLSPServer{Command: expand(s.Command), InitializationOptions: s.Init}
	for _, a := range s.Args {
		row.Args = append(row.Args, expand(a))
	}
	var skipped, ids []string
	for _, ext := range sortedKeys(s.Extensions) {
		e := strings.ToLower(ext)
		if !strings.HasPrefix(e, ".") {
			e = "." + e
		}
		row.Languages = append(row.Languages, e)
		if id := s.Extensions[ext]; id != "" && !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	if len(ids) > 0 {
		row.LanguageID = ids[0]
	}
	if len(ids) > 1 {
		skipped = append(skipped, fmt.Sprintf("its language server %s maps its extensions to several languages (%s): gantry sends %s for all of them", name, strings.Join(ids, ", "), ids[0]))
	}
	var ignored []string
	for k := range keys {
		if !slices.Contains(lspKeysUsed, k) {
			ignored = append(ignored, k)
		}
	}
	sort.Strings(ignored)
	if len(ignored) > 0 {
		skipped = append(skipped, fmt.Sprintf("its language server %s: gantry's server table cannot express %s (not used)", name, strings.Join(ignored, ", ")))
	}
	return row, skipped
}
