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

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/tool"
)

// runTool runs one tool without a model: `gantry tool NAME [JSON]` (the arguments may
// come on stdin). It prints what the model would read; the exit status is 1 when the
// tool reports a failure. The person at the command line is the authority here: no
// permission is asked.
func runTool(args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(os.Stderr, "usage: gantry tool NAME ['{\"arg\": …}']   (arguments may also come on stdin; `gantry tool list` lists the tools)")
		return 2
	}
	reg, env, stop, err := app.Standalone("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	defer stop()
	if args[0] == "list" {
		for _, t := range reg.Declared(tool.LevelExec) {
			fmt.Printf("%-14s %s\n", t.Name(), t.Level())
		}
		return 0
	}
	t, ok := reg.Lookup(args[0])
	if !ok {
		fmt.Fprintf(os.Stderr, "gantry: no tool named %q here (gantry tool list)\n", args[0])
		return 2
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
	inv, msg := t.Decode(env, json.RawMessage(input))
	if msg != "" {
		fmt.Fprintln(os.Stderr, msg)
		return 2
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()
	r := inv.Run(ctx)
	fmt.Print(r.Text)
	if !strings.HasSuffix(r.Text, "\n") {
		fmt.Println()
	}
	if r.IsError {
		return 1
	}
	return 0
}
