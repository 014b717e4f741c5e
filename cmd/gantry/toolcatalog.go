package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

const toolListUsage = "usage: gantry tool [--trust] list [--mcp] [--json]   (every tool a session here knows; --mcp starts the MCP servers to list theirs too)"

// catalog is what a session of this folder would know of its tools, read from a
// preview session (app.Options.Preview: nothing started, no model): every built-in
// tool with its state, and the MCP servers it would start.
type catalog struct {
	entries []app.ToolEntry
	mcp     []string // the servers a session would start
	held    []string // the project's servers held back while the folder is not trusted
}

func loadCatalog(trust bool) (c catalog, err error) {
	a, err := app.New(app.Options{Preview: true, Trust: trust})
	if err != nil {
		return c, err
	}
	defer func() { err = errors.Join(err, a.Close()) }()
	if c.entries, err = a.ToolCatalog(); err != nil {
		return c, err
	}
	c.mcp = a.MCPConfigured()
	if tr := a.FolderTrust(); !tr.Trusted() {
		c.held = tr.Held.Servers
	}
	return c, nil
}

func (c catalog) find(name string) (app.ToolEntry, bool) {
	for _, e := range c.entries {
		if e.Tool.Name() == name {
			return e, true
		}
	}
	return app.ToolEntry{}, false
}

// Where `gantry tool` runs a tool of the catalog (the RUNS column of the list).
const (
	runsHere    = "here"    // in this process, as `gantry tool NAME ARGS`
	runsSession = "session" // it acts on a conversation: in a session only
	runsMCP     = "mcp"     // it keeps state between calls: gantry mcp, or a session
)

func runs(e app.ToolEntry) string {
	switch {
	case e.Alone:
		return runsHere
	case e.Tool.Info().Conversation:
		return runsSession
	}
	return runsMCP
}

// notHere is the sentence `gantry tool NAME ARGS` answers for a tool of the catalog
// it does not run in one process, or "" when it runs it.
func notHere(e app.ToolEntry) string {
	name := e.Tool.Name()
	switch runs(e) {
	case runsSession:
		return fmt.Sprintf("%s acts on a conversation (the model's own state: its list, its plan, its questions, its workers), so it runs only in a session — gantry, gantry -p, an editor through gantry acp — where the model calls it; gantry mcp does not serve it.", name)
	case runsMCP:
		return fmt.Sprintf("%s keeps state from one call to the next, which one process would drop when it exits: call it through gantry mcp (which serves it to another agent) or in a session.", name)
	}
	return ""
}

// listTools is `gantry tool list`: every tool a session here knows — name, level,
// state (declared, deferred, or off and why), where gantry tool runs it, one line.
// Its flags were parsed with gantry tool's; extra holds the words after list.
func listTools(extra []string, rules, trust, withMCP, asJSON bool) int {
	if len(extra) > 0 {
		fmt.Fprintf(os.Stderr, "gantry tool list: unexpected argument %q; %s\n", extra[0], toolListUsage)
		return 2
	}
	c, err := loadCatalog(trust)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return exitCode(err)
	}
	rows := make([]toolRow, 0, len(c.entries))
	for _, e := range c.entries {
		rows = append(rows, rowOf(e))
	}
	if withMCP && len(c.mcp) > 0 {
		mcpRows, code := startedMCPTools(c, rules, trust)
		if code != 0 {
			return code
		}
		rows = append(rows, mcpRows...)
	}
	if asJSON {
		return printJSON("tool list", rows)
	}
	fmt.Printf("%-18s %-5s %-8s %-7s %s\n", "NAME", "LEVEL", "STATE", "RUNS", "WHAT IT DOES")
	for _, r := range rows {
		line := r.Line
		if r.Why != "" {
			line = "(off: " + r.Why + ") " + line
		}
		fmt.Printf("%-18s %-5s %-8s %-7s %s\n", r.Name, r.Level, r.State, r.Runs, line)
	}
	switch {
	case len(c.mcp) > 0 && !withMCP:
		fmt.Printf("\n%d MCP server(s) configured (%s): their tools are known once they start, so they are not listed; `gantry tool list --mcp` starts them and lists them, `gantry doctor` says where each is defined.\n",
			len(c.mcp), strings.Join(c.mcp, ", "))
	case len(c.held) > 0:
		fmt.Printf("\nThis folder is not trusted: its %d project MCP server(s) are not started (--trust starts them).\n", len(c.held))
	}
	fmt.Println("\nRUNS: here, `gantry tool NAME ARGS` runs it in this process; session, it acts on a conversation and runs in a session only; mcp, it keeps state between calls: gantry mcp serves it.")
	return 0
}

// toolRow is one line of `gantry tool list` (and an object of --json).
type toolRow struct {
	Name  string `json:"name"`
	Level string `json:"level"`
	Kind  string `json:"kind"`
	State string `json:"state"`
	Why   string `json:"why,omitempty"`
	Runs  string `json:"runs"`
	Line  string `json:"description"`
	// Tokens estimates what its declaration costs a request (name, description and
	// schema, at four bytes a token: the estimate /context uses).
	Tokens int `json:"tokens"`
}

func rowOf(e app.ToolEntry) toolRow {
	t := e.Tool
	return toolRow{Name: t.Name(), Level: t.Level().String(), Kind: string(t.Kind()), State: string(e.State), Why: e.Why,
		Runs: runs(e), Line: firstSentence(t.Spec().Description), Tokens: specTokens(t.Spec())}
}

// startedMCPTools starts the MCP servers (as `gantry tool` does to run one of their
// tools) and returns rows for their tools: those of the started registry that the
// catalog lacks.
func startedMCPTools(c catalog, rules, trust bool) ([]toolRow, int) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	reg, _, _, failures, stop, err := app.Standalone(ctx, "", rules, trust)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return nil, 1
	}
	for _, f := range failures {
		fmt.Fprintln(os.Stderr, "gantry: ⚠", f)
	}
	var rows []toolRow
	for _, t := range reg.Declared(tool.LevelExec) {
		if _, ok := c.find(t.Name()); !ok {
			rows = append(rows, rowOf(app.ToolEntry{Tool: t, State: app.ToolDeclared, Alone: true}))
		}
	}
	if err := stop(); err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
	}
	return rows, 0
}

// toolHelp is `gantry tool NAME --help` for a tool of the catalog; ok is false when
// the catalog has no such tool (an MCP server's: the caller starts them to find it).
func toolHelp(name string, trust bool) (code int, ok bool) {
	c, err := loadCatalog(trust)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return exitCode(err), true
	}
	e, ok := c.find(name)
	if !ok {
		return 0, false
	}
	printToolHelp(e)
	return 0, true
}

// printToolHelp prints what the model reads of a tool — its description and the JSON
// schema of its arguments, byte for byte but indented — after its level, kind, state
// and where `gantry tool` runs it.
func printToolHelp(e app.ToolEntry) {
	spec := e.Tool.Spec()
	info := e.Tool.Info()
	state := string(e.State)
	if e.Why != "" {
		state += " here: " + e.Why
	}
	fmt.Printf("%s — level %s, kind %s, %s (about %d tokens)\n", spec.Name, info.Level, info.Kind, state, specTokens(spec))
	switch {
	case notHere(e) != "":
		fmt.Println(notHere(e))
	case e.State == app.ToolOff:
		fmt.Printf("gantry tool %s '{…}' runs it here once it is on.\n", spec.Name)
	default:
		fmt.Printf("gantry tool %s '{…}' runs it here.\n", spec.Name)
	}
	fmt.Printf("\n%s\n\nArguments (JSON schema, as the model reads it):\n", strings.TrimSpace(spec.Description))
	var b bytes.Buffer
	if json.Indent(&b, spec.Schema, "", "  ") == nil {
		fmt.Println(b.String())
	} else {
		fmt.Println(string(spec.Schema))
	}
}

// cannotRun answers `gantry tool NAME ARGS` for a tool this process does not run: one
// that acts on a conversation, keeps state between calls, or is off here, or that no
// session knows. The exit status is 2.
func cannotRun(name string, trust bool) int {
	c, err := loadCatalog(trust)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return exitCode(err)
	}
	e, ok := c.find(name)
	switch {
	case !ok:
		fmt.Fprintf(os.Stderr, "gantry: no tool named %q here (gantry tool list).\n", name)
	case notHere(e) != "":
		fmt.Fprintln(os.Stderr, "gantry:", notHere(e))
	case e.Why != "":
		fmt.Fprintf(os.Stderr, "gantry: %s is off here: %s.\n", name, e.Why)
	default:
		fmt.Fprintf(os.Stderr, "gantry: %s is not available to gantry tool here.\n", name)
	}
	return 2
}

// specTokens estimates the tokens of a tool's declaration, at four bytes a token (as
// /context does).
func specTokens(s llm.ToolSpec) int {
	return tokens(len(s.Name) + len(s.Description) + len(s.Schema))
}
