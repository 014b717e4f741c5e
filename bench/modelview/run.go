package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// bench holds what every measurement shares: the binary, the scratch folders and the
// project gantry runs in.
type bench struct {
	bin  string
	root string // scratch folder, removed at the end
	proj string // the project gantry works in: a small Go module with a git repository
	home string // HOME, so no ~/.claude.json or user config of the machine is read
	mcp  string // the folder holding the stock MCP servers' node_modules, "" when absent
	dump string // a folder to write every request body to, "" for none
	runs int    // a counter naming dumped runs
}

// gantryEnv is the environment of a gantry run against the fake server at url for
// the API api, in the time zone tz ("" keeps the machine's). The variables that could
// point gantry elsewhere are dropped.
func (b *bench) gantryEnv(api, url, tz string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "ANTHROPIC_") || strings.HasPrefix(k, "OPENAI_") || strings.HasPrefix(k, "GANTRY_") ||
			k == "HOME" || k == "TZ" || k == "CLAUDE_CONFIG_DIR" || k == "XDG_CONFIG_HOME" || k == "XDG_DATA_HOME" {
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "HOME="+b.home, "NO_COLOR=1",
		"GANTRY_DATA_DIR="+filepath.Join(b.root, "data"), "GANTRY_CONFIG_DIR="+filepath.Join(b.root, "config"),
		"XDG_CONFIG_HOME="+filepath.Join(b.home, ".config"), "XDG_DATA_HOME="+filepath.Join(b.home, ".local", "share"))
	if tz != "" {
		env = append(env, "TZ="+tz)
	}
	if api == apiAnthropic {
		return append(env, "ANTHROPIC_BASE_URL="+url, "ANTHROPIC_API_KEY=bench")
	}
	return append(env, "OPENAI_BASE_URL="+url+"/v1", "OPENAI_API_KEY=bench")
}

// printRun runs gantry in print mode against a fake server answering with turns and
// returns the requests it sent, parsed.
func (b *bench) printRun(label, api string, turns []fakellm.Turn, args ...string) ([]*request, error) {
	srv := fakellm.New(turns...)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, b.bin, append([]string{"--provider", api}, args...)...)
	cmd.Dir = b.proj
	cmd.Env = b.gantryEnv(api, srv.URL(), "")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("%s: gantry %s: %w\n%s", label, strings.Join(args, " "), err, tail(out.String(), 2000))
	}
	return b.parseAll(label, srv.Requests())
}

// parseAll parses recorded requests, writing their bodies to the dump folder first.
func (b *bench) parseAll(label string, recs []fakellm.Recorded) ([]*request, error) {
	if b.dump != "" {
		b.runs++
		dir := filepath.Join(b.dump, fmt.Sprintf("%02d-%s", b.runs, label))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, fmt.Errorf("making the dump folder: %w", err)
		}
		for i, r := range recs {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("%03d.json", i+1)), r.Raw, 0o644); err != nil {
				return nil, fmt.Errorf("dumping a request: %w", err)
			}
		}
	}
	var reqs []*request
	for i, r := range recs {
		p, err := parseRequest(r.Path, r.Raw)
		if err != nil {
			return nil, fmt.Errorf("%s, request %d: %w", label, i+1, err)
		}
		reqs = append(reqs, p)
	}
	return reqs, nil
}

// setup makes the project: a Go module with a git repository, a generated tree of
// source files for the search calls and a large text file for read_file.
func (b *bench) setup() error {
	files := map[string]string{
		"go.mod":  "module example.com/demo\n\ngo 1.22\n",
		"main.go": "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n",
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(b.proj, name), []byte(text), 0o644); err != nil {
			return err
		}
	}
	// 1,000 files of ten lines, six of which hold the word needle: ~560 KB of source,
	// and ~450 KB of `grep -rn needle tree` output.
	for d := 0; d < 40; d++ {
		dir := filepath.Join(b.proj, "tree", fmt.Sprintf("pkg%02d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		for f := 0; f < 25; f++ {
			var s strings.Builder
			fmt.Fprintf(&s, "package pkg%02d\n\n", d)
			for l := 0; l < 6; l++ {
				fmt.Fprintf(&s, "var needle%d = lookup(%d, \"item %d of file %d\") // needle\n", l, d*1000+f*10+l, l, f)
			}
			s.WriteString("\nfunc lookup(n int, s string) int { return n + len(s) }\n")
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("file%02d.go", f)), []byte(s.String()), 0o644); err != nil {
				return err
			}
		}
	}
	var big strings.Builder
	for i := 1; i <= 20000; i++ {
		fmt.Fprintf(&big, "line %d: an ordinary line of a large log file, long enough to count\n", i)
	}
	if err := os.WriteFile(filepath.Join(b.proj, "big.txt"), []byte(big.String()), 0o644); err != nil {
		return err
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "-A"}, {"-c", "user.name=bench", "-c", "user.email=bench@example.com", "commit", "-q", "-m", "start"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir = b.proj
		cmd.Env = append(os.Environ(), "HOME="+b.home)
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("git %s: %w: %s", args[0], err, out)
		}
	}
	return nil
}

// mcpConfig writes the project's .mcp.json naming the three stock servers, as a user
// of Claude Code or gantry writes it, and returns a function removing it.
func (b *bench) mcpConfig() (func(), error) {
	bin := func(name string) string { return filepath.Join(b.mcp, "node_modules", ".bin", name) }
	cfg := map[string]any{"mcpServers": map[string]any{
		"everything": map[string]any{"command": bin("mcp-server-everything")},
		"filesystem": map[string]any{"command": bin("mcp-server-filesystem"), "args": []string{b.proj}},
		"memory":     map[string]any{"command": bin("mcp-server-memory"), "env": map[string]string{"MEMORY_FILE_PATH": filepath.Join(b.root, "memory.jsonl")}},
	}}
	data, err := json.MarshalIndent(cfg, "", "  ")
	if err != nil {
		return nil, err
	}
	path := filepath.Join(b.proj, ".mcp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return nil, err
	}
	// The user's approval of every project server, in Claude Code's settings, which
	// gantry honours: the folder need not be trusted (a binary with no --trust flag
	// and one with it are run alike).
	settings := filepath.Join(b.home, ".claude", "settings.json")
	if err := os.MkdirAll(filepath.Dir(settings), 0o755); err != nil {
		return nil, err
	}
	if err := os.WriteFile(settings, []byte(`{"enableAllProjectMcpServers": true}`+"\n"), 0o644); err != nil {
		return nil, err
	}
	return func() { _ = os.Remove(path); _ = os.Remove(settings) }, nil
}

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return "…" + s[len(s)-n:]
}
