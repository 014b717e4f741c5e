package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/ui/acp"
	"github.com/gantry-dev/gantry/internal/version"
)

// runACP is `gantry acp`: an Agent Client Protocol agent on stdin and stdout, for
// editors. Logs go to stderr; stdout carries nothing but the protocol.
func runACP(args []string) int {
	f, err := parseFlags(args)
	if err != nil {
		if err == errHelp {
			usage(os.Stdout)
			return 0
		}
		fmt.Fprintln(os.Stderr, "gantry acp:", err)
		return 2
	}
	switch {
	case f.print:
		fmt.Fprintln(os.Stderr, "gantry acp: -p does not apply: the editor sends the prompts")
		return 2
	case f.cont || f.resume != "" || f.interactive:
		fmt.Fprintln(os.Stderr, "gantry acp: --continue, --resume and --interactive do not apply: the editor opens and loads sessions, and asks its own questions")
		return 2
	case f.prompt != "":
		fmt.Fprintf(os.Stderr, "gantry acp: unexpected argument %q: the editor sends the prompts\n", f.prompt)
		return 2
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	err = acp.Serve(ctx, os.Stdin, os.Stdout, acp.Options{
		App: app.Options{
			Cwd: f.cwd, Provider: f.provider, Model: f.model, PermissionMode: f.permissionMode, Sandbox: f.sandbox.ptr(),
			Allow: f.allow, Deny: f.deny, MaxTurns: f.maxTurns, SystemPrompt: f.systemPrompt,
			AppendSystemPrompt: f.appendSystemPrompt, Vibe: f.vibe, Trust: f.trust,
		},
		Version: version.String(),
		Log:     os.Stderr,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry acp:", err)
		return 1
	}
	return 0
}
