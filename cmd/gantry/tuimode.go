package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/ui/tui"
	"github.com/gantry-dev/gantry/internal/ui/tui/setup"
	"github.com/gantry-dev/gantry/internal/version"
)

// runTUI is `gantry` at a terminal with no prompt: the full-screen UI. With no
// model provider configured it first runs the short setup.
func runTUI(f *flags) int {
	if err := f.limits.printOnly(); err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", err)
		return exitUsage
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	color := os.Getenv("NO_COLOR") == "" && os.Getenv("TERM") != "dumb"
	opts := app.Options{
		Cwd: f.cwd, Provider: f.provider, Model: f.model, PermissionMode: f.permissionMode, Sandbox: f.sandbox.ptr(),
		Allow: f.allow, Deny: f.deny, MaxTurns: f.maxTurns, SystemPrompt: f.systemPrompt,
		AppendSystemPrompt: f.appendSystemPrompt, Continue: f.cont, Resume: f.resume, Vibe: f.vibe,
		Trust: f.trust, Store: f.limits.store(),
	}
	if err := app.CheckProvider(opts, cwdOr(f.cwd)); errors.Is(err, app.ErrNoProvider) {
		res, err := setup.Run(os.Stdin, os.Stdout, setup.Options{Color: color})
		switch {
		case err != nil:
			fmt.Fprintln(os.Stderr, "gantry: the setup failed:", err)
			return 1
		case res.Aborted:
			fmt.Fprintln(os.Stderr, "gantry: setup cancelled; nothing was written")
			return 1
		}
	}
	if err := tui.Run(ctx, tui.Options{App: opts, Color: color, Version: version.String()}); err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	return 0
}

func cwdOr(dir string) string {
	if dir != "" {
		return dir
	}
	wd, _ := os.Getwd()
	return wd
}
