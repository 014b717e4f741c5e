// Command modelview measures what the model reads from a gantry binary, black-box:
// it runs the binary against a fake model server (package fakellm) on 127.0.0.1 and
// reads the request bodies gantry sends. It prints Markdown tables of
//
//  1. the first request's bytes and estimated tokens by part — system, each tool,
//     deferred tools apart, messages — for each API (Anthropic Messages, OpenAI
//     Responses, OpenAI Chat Completions), bare and with three stock MCP servers
//     configured in the project's .mcp.json;
//  2. the prefix stability of a scripted 20-request session through gantry acp that
//     enters plan mode and leaves it, then ends and is resumed "the next day" (in
//     another time zone, 26 hours ahead): where each request's tools, system and
//     messages stop being the start of the next one's, and what that re-caches;
//  3. the characters and tokens of the results of a fixed set of tool calls;
//  4. the first figures for the peers on PATH (claude, codex, opencode).
//
// Tokens are estimated at four bytes a token, as gantry's /context does.
//
//	go run ./bench/modelview -gantry /path/to/gantry
//
// The MCP servers are @modelcontextprotocol/server-everything, -filesystem and
// -memory, installed with `npm ci --prefix bench/modelview/mcp`; without them the MCP
// rows are left out with a note. Nothing leaves the machine.
package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	bin := flag.String("gantry", "gantry", "the gantry binary to measure")
	mcpDir := flag.String("mcp", "bench/modelview/mcp", "the folder whose node_modules holds the stock MCP servers")
	dump := flag.String("dump", "", "write every request body to this folder (a subfolder per run)")
	only := flag.String("only", "", "measure one part only: first, session, results or peers")
	bodies := flag.String("bodies", "", "run nothing: read the request bodies NNN.json of this folder (a -dump's or fakeserve's) and print their first request by part and their prefix breaks")
	flag.Parse()
	var err error
	if *bodies != "" {
		err = readBodies(os.Stdout, *bodies)
	} else {
		err = run(*bin, *mcpDir, *dump, *only)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "modelview:", err)
		os.Exit(1)
	}
}

func run(bin, mcpDir, dump, only string) error {
	path, err := exec.LookPath(bin)
	if err != nil {
		return err
	}
	if path, err = filepath.Abs(path); err != nil {
		return err
	}
	root, err := scratch()
	if err != nil {
		return err
	}
	defer os.RemoveAll(root)
	b := &bench{bin: path, root: root, proj: filepath.Join(root, "proj"), home: filepath.Join(root, "home"), dump: dump}
	for _, d := range []string{b.proj, b.home} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if dir, err := filepath.Abs(mcpDir); err == nil {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", ".bin", "mcp-server-memory")); err == nil {
			b.mcp = dir
		}
	}
	if err := b.setup(); err != nil {
		return fmt.Errorf("making the project: %w", err)
	}
	w := os.Stdout
	version, _ := exec.Command(path, "version").Output()
	fmt.Fprintf(w, "## What the model reads: %s (%s)\n\n", path, strings.TrimSpace(string(version)))
	apis := []string{apiAnthropic, apiResponses, apiChat}
	var body strings.Builder
	var sum summary
	if only == "" || only == "first" {
		firsts, err := b.firstRequests(apis)
		if err != nil {
			return err
		}
		sum.firsts = firsts
		writeFirst(&body, firsts)
		if b.mcp == "" {
			fmt.Fprintf(&body, "MCP rows left out: the servers are not installed (`npm ci --prefix %s`).\n\n", mcpDir)
		}
	}
	if only == "" || only == "session" {
		for _, api := range apis {
			r, err := b.session(api)
			if err != nil {
				return err
			}
			sum.sessions = append(sum.sessions, r)
		}
		if err := writeSessions(&body, sum.sessions, acpSessionHow); err != nil {
			return err
		}
	}
	if only == "" || only == "results" {
		rows, err := b.results()
		if err != nil {
			return err
		}
		sum.results = rows
		writeResults(&body, rows)
	}
	if only == "" || only == "peers" {
		if err := writePeers(&body, b.peers()); err != nil {
			return err
		}
	}
	if err := sum.write(w); err != nil {
		return err
	}
	_, err = io.WriteString(w, body.String())
	return err
}

// scratch makes the scratch folder. Its name has a fixed length: the project's path is
// in the system prompt, and a path one digit longer would move the figures by a byte.
func scratch() (string, error) {
	for {
		dir := filepath.Join(os.TempDir(), fmt.Sprintf("gantry-modelview-%010d", rand.Uint32()))
		err := os.Mkdir(dir, 0o700)
		if err == nil {
			return dir, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return "", err
		}
	}
}
