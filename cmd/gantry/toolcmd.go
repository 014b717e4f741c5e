package main

import (
	"context"
	"encoding/json"
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

const toolUsage = "usage: gantry tool [--no-rules] [--trust] NAME ['{\"arg\": …}']   (arguments may also come on stdin; `gantry tool list` lists the tools, `gantry tool NAME --help` shows one; the deny rules hold unless --no-rules)"

// runTool runs one tool without a model: `gantry tool NAME [JSON]` (the arguments may
// come on stdin). It prints what the model would read; the exit status is 1 when the
// tool reports a failure. The person at the command line is the authority here: no
// permission is asked, but the deny rules of the rules files and config hold (bash
// under the exec supervisor too), unless --no-rules says plainly to bypass them.
func runTool(args []string) int {
	rules, trust, raw := true, false, false
	for len(args) > 0 && (args[0] == "--no-rules" || args[0] == "--trust" || args[0] == "--raw") {
		rules, trust = rules && args[0] != "--no-rules", trust || args[0] == "--trust"
		raw = raw || args[0] == "--raw"
		args = args[1:]
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(os.Stderr, toolUsage)
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	reg, env, gate, failures, stop, err := app.Standalone(ctx, "", rules, trust)
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
	if args[0] == "list" {
		for _, t := range reg.Declared(tool.LevelExec) {
			fmt.Printf("%-24s %-5s %s\n", t.Name(), t.Level(), firstSentence(t.Spec().Description))
		}
		return 0
	}
	t, ok := reg.Lookup(args[0])
	if !ok {
		fmt.Fprintf(os.Stderr, "gantry: no tool named %q here (gantry tool list)\n", args[0])
		return 2
	}
	if len(args) > 1 && (args[1] == "--help" || args[1] == "-h") {
		printToolHelp(t)
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
		c := permission.Call{Tool: t.Name(), Level: t.Level(), Principal: inv.Principal, Paths: inv.Paths, Files: t.Info().Files}
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
	if !raw {
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

// printToolHelp prints a tool's description and the JSON schema of its arguments, as
// the model reads them.
func printToolHelp(t tool.Tool) {
	spec := t.Spec()
	info := t.Info()
	fmt.Printf("%s — level %s, kind %s\n\n%s\n\nArguments (JSON schema):\n", spec.Name, info.Level, info.Kind, strings.TrimSpace(spec.Description))
	var v any
	if json.Unmarshal(spec.Schema, &v) == nil {
		b, _ := json.MarshalIndent(v, "", "  ")
		fmt.Println(string(b))
	} else {
		fmt.Println(string(spec.Schema))
	}
}

// firstSentence is the first sentence of a description, for a listing.
func firstSentence(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexAny(s, "\n"); i >= 0 {
		s = s[:i]
	}
	if i := strings.Index(s, ". "); i >= 0 {
		s = s[:i+1]
	}
	if r := []rune(s); len(r) > 90 {
		s = string(r[:89]) + "…"
	}
	return s
}
