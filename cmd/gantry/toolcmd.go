package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

const toolUsage = "usage: gantry tool [--no-rules] [--trust] [--raw] NAME ['{\"arg\": …}']   (arguments may also come on stdin; `gantry tool list [--mcp] [--json]` lists every tool, `gantry tool NAME --help` shows one; the deny rules hold unless --no-rules; exit 1 when the tool fails, 2 for a usage error or a tool that does not run in one process)"

// runTool runs one tool without a model: `gantry tool NAME [JSON]` (the arguments may
// come on stdin). It prints what the model would read; the exit status is 1 when the
// tool reports a failure. The person at the command line is the authority here: no
// permission is asked, but the deny rules of the rules files and config hold (bash
// under the exec supervisor too), unless --no-rules says plainly to bypass them.
func runTool(args []string) int {
	// One flag set for gantry tool NAME and gantry tool list, parsed by the rule of
	// every sub-command (parseArgs): flags before or after NAME and its arguments.
	fs := flag.NewFlagSet("tool", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	noRules := fs.Bool("no-rules", false, "")
	trust := fs.Bool("trust", false, "")
	raw := fs.Bool("raw", false, "")
	withMCP := fs.Bool("mcp", false, "")
	asJSON := fs.Bool("json", false, "")
	help := fs.Bool("help", false, "")
	fs.BoolVar(help, "h", false, "")
	args, code, ok := parseCommandWords(fs, args, "tool", toolUsage, os.Stdout, os.Stderr)
	if !ok {
		return code
	}
	rules := !*noRules
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, toolUsage)
		return 2
	}
	if args[0] == "list" {
		if *help {
			fmt.Println(toolListUsage)
			return 0
		}
		return listTools(args[1:], rules, *trust, *withMCP, *asJSON)
	}
	if *withMCP || *asJSON {
		fmt.Fprintln(os.Stderr, "gantry tool: --mcp and --json go with gantry tool list;", toolUsage)
		return 2
	}
	if *help {
		if code, ok := toolHelp(args[0], *trust); ok {
			return code
		}
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	reg, env, gate, failures, stop, err := app.Standalone(ctx, "", rules, *trust)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	defer func() {
		if err := stop(); err != nil {
			fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		}
	}()
	for _, f := range failures {
		fmt.Fprintln(os.Stderr, "gantry: ⚠", f)
	}
	t, ok := reg.Lookup(args[0])
	if !ok {
		return cannotRun(args[0], *trust)
	}
	if *help { // an MCP server's tool
		printToolHelp(app.ToolEntry{Tool: t, State: app.ToolDeclared, Alone: true})
		return 0
	}
	input := "{}"
	switch {
	case len(args) > 1:
		input = strings.Join(args[1:], " ")
	case !isTerminal(os.Stdin):
		b, err := io.ReadAll(io.LimitReader(os.Stdin, 64<<20))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gantry: reading the arguments:", err)
			return 2
		}
		if s := strings.TrimSpace(string(b)); s != "" {
			input = s
		}
	}
	// The result is bounded as the loop bounds it (tool.Fit): what is cut is saved in
	// the standalone outputs folder, which the note names; --raw prints it whole.
	maxOut, outputs, err := app.StandaloneBound(env.Cwd)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	if gate != nil {
		gate.SetOwnOutputs(outputs.Dir) // its saved outputs are read as a session's are
		env.Files = gate.FileGuard(t.Name())
	}
	inv, msg := t.Decode(env, json.RawMessage(input))
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		return 2
	}
	if gate != nil {
		c := permission.Call{Tool: t.Name(), Level: tool.Describe(t, inv).Level, ToolLevel: t.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: t.Info().Files}
		if v := gate.Check(c); v.Decision == permission.Deny {
			fmt.Fprintf(os.Stderr, "gantry: %s was refused: %s (gantry tool --no-rules %s … runs it anyway).\n", t.Name(), v.Reason, t.Name())
			return 1
		}
	}
	id := t.Name() + "-" + time.Now().Format("20060102-150405")
	r := inv.Run(tool.WithCallID(tool.WithOutputs(ctx, outputs), id))
	for _, b := range r.Blocked {
		fmt.Fprintf(os.Stderr, "gantry: ⛔ blocked by deny rule %s: %s\n", b.Rule, b.Command)
	}
	if !*raw {
		r = tool.Fit(r, maxOut, outputs, id)
	}
	fmt.Print(r.Text)
	if !strings.HasSuffix(r.Text, "\n") {
		fmt.Println()
	}
	if r.IsError {
		return 1
	}
	return 0
}

// firstSentence is the first sentence of a description, for a listing: its first
// paragraph's lines joined (descriptions are wrapped), up to its first full stop.
func firstSentence(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n\n")
	s = strings.Join(strings.Fields(s), " ")
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 90 {
		s = string(r[:89]) + "…"
	}
	return s
}
