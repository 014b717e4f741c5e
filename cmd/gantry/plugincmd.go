package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gantry-dev/gantry/internal/app"
)

// pluginUsage is the usage of `gantry plugin`.
const pluginUsage = `usage: gantry plugin add [--project] PATH|GIT-URL|NAME@MARKETPLACE
       gantry plugin list
       gantry plugin remove [--project] NAME
       gantry plugin marketplace add PATH|GIT-URL|OWNER/REPO|NAME
       gantry plugin marketplace list
       gantry plugin marketplace remove NAME`

// runPlugin is `gantry plugin add|list|remove` (docs/plugins.md).
func runPlugin(args []string) int {
	return pluginCommand(context.Background(), args, os.Stdout, os.Stderr)
}

// pluginCommand runs `gantry plugin` with args, writing to out and errOut.
func pluginCommand(ctx context.Context, args []string, out, errOut io.Writer) int {
	fs := flag.NewFlagSet("plugin", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	project := fs.Bool("project", false, "")
	words, code, ok := parseCommandWords(fs, args, "plugin", pluginUsage, out, errOut)
	if !ok {
		return code
	}
	if len(words) == 0 {
		fmt.Fprintln(errOut, pluginUsage)
		return 2
	}
	verb, operands := words[0], words[1:]
	cwd, err := os.Getwd()
	if err != nil {
		fmt.Fprintln(errOut, "gantry:", sentence(err))
		return 1
	}
	switch {
	case verb == "marketplace" && len(operands) > 0 && !*project:
		return marketplaceCommand(ctx, cwd, operands, out, errOut)
	case verb == "add" && len(operands) == 1:
		p, err := app.AddPlugin(ctx, cwd, operands[0], *project)
		if err != nil {
			fmt.Fprintln(errOut, "gantry:", sentence(err))
			return 1
		}
		scope := "user"
		if *project {
			scope = "project"
		}
		fmt.Fprintf(out, "Added the plugin %s (%s): %s\n", p.Name, scope, p.Root)
		return 0
	case verb == "list" && len(operands) == 0 && !*project:
		lines, err := app.ListPlugins(cwd)
		return printLines(out, errOut, lines, err)
	case verb == "remove" && len(operands) == 1:
		dir, err := app.RemovePlugin(cwd, operands[0], *project)
		if err != nil {
			fmt.Fprintln(errOut, "gantry:", sentence(err))
			return 1
		}
		fmt.Fprintf(out, "Removed the plugin %s: %s\n", operands[0], dir)
		return 0
	}
	fmt.Fprintln(errOut, pluginUsage)
	return 2
}

// printLines prints a listing's lines (exit 0), or its error (exit 1).
func printLines(out, errOut io.Writer, lines []string, err error) int {
	if err != nil {
		fmt.Fprintln(errOut, "gantry:", sentence(err))
		return 1
	}
	for _, l := range lines {
		fmt.Fprintln(out, l)
	}
	return 0
}

// marketplaceCommand runs `gantry plugin marketplace add|list|remove` with args.
func marketplaceCommand(ctx context.Context, cwd string, args []string, out, errOut io.Writer) int {
	switch {
	case args[0] == "add" && len(args) == 2:
		m, err := app.AddMarketplace(ctx, cwd, args[1])
		if err != nil {
			fmt.Fprintln(errOut, "gantry:", sentence(err))
			return 1
		}
		fmt.Fprintf(out, "Added the marketplace %s: %s\n", m.Name, m.Dir)
		return 0
	case args[0] == "list" && len(args) == 1:
		lines, err := app.ListMarketplaces(cwd)
		return printLines(out, errOut, lines, err)
	case args[0] == "remove" && len(args) == 2:
		dir, err := app.RemoveMarketplace(args[1])
		if err != nil {
			fmt.Fprintln(errOut, "gantry:", sentence(err))
			return 1
		}
		fmt.Fprintf(out, "Removed the marketplace %s: %s\n", args[1], dir)
		return 0
	}
	fmt.Fprintln(errOut, pluginUsage)
	return 2
}
