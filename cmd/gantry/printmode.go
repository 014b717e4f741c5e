package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	printface "github.com/gantry-dev/gantry/internal/ui/print"
)

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// runPrint is print mode: one prompt, run to the end.
func runPrint(f *flags) int {
	if !f.print && isTerminal(os.Stdin) && f.prompt == "" {
		return runTUI(f)
	}
	format, err := printface.ParseFormat(f.outputFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", err)
		return 2
	}
	prompt := f.prompt
	if prompt == "" && !isTerminal(os.Stdin) {
		b, err := io.ReadAll(io.LimitReader(os.Stdin, 10<<20))
		if err != nil {
			fmt.Fprintln(os.Stderr, "gantry: reading the prompt from stdin:", err)
			return 2
		}
		prompt = string(b)
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, "gantry: no prompt: give one after -p or on stdin")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()

	var printer *printface.Printer
	sink := func(e face.Event) { printer.Handle(e) }
	var asker face.Asker = face.NoHuman{}
	if f.interactive {
		tty, closeTTY, ok := printface.OpenTerminal(func() { printer.Flush() })
		if !ok {
			fmt.Fprintln(os.Stderr, "gantry: --interactive needs a terminal to ask at, and none is attached")
			return 2
		}
		defer closeTTY()
		asker = tty
	}
	a, err := app.New(app.Options{
		Cwd: f.cwd, Provider: f.provider, Model: f.model, PermissionMode: f.permissionMode,
		Allow: f.allow, Deny: f.deny, MaxTurns: f.maxTurns, SystemPrompt: f.systemPrompt,
		AppendSystemPrompt: f.appendSystemPrompt, Continue: f.cont, Resume: f.resume,
	}, sink, asker)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	defer a.Close()
	previewLines := 5
	if a.Config != nil {
		previewLines = a.Config.PreviewLines
	}
	printer = printface.New(os.Stdout, printface.Options{
		Format: format, PreviewLines: previewLines, FlushAfter: 10 * time.Millisecond,
		Color: isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "",
	})
	printer.Start(a.Session.ID(), a.Model, a.Agent.Env.Cwd, a.ToolNames())
	a.SetTitle(prompt)
	prompt, notes := a.ExpandPrompt(prompt)
	for _, n := range notes {
		printer.Handle(face.Notice{Text: n})
	}
	end := a.Agent.Run(ctx, prompt)
	res := printer.Finish(end)
	switch {
	case end.StopReason == "end_turn":
		return 0
	case end.StopReason == "cancelled":
		fmt.Fprintln(os.Stderr, "gantry: cancelled")
		return 130
	case end.Err != nil:
		fmt.Fprintln(os.Stderr, "gantry:", sentence(end.Err))
	default:
		fmt.Fprintf(os.Stderr, "gantry: the model stopped early (%s)\n", res.StopReason)
	}
	return 1
}

// sentence makes an error read as one sentence.
func sentence(err error) string {
	s := err.Error()
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
