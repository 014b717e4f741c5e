// Command gantry is a coding agent for the terminal and the editor. This file holds
// only the command line: flags and sub-commands; the work is in internal/.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sync"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/version"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent) // startgc.go
	}
	code := run(os.Args[1:])
	contain.Cleanup() // the folder of the commands' cgroups, where there are no namespaces
	os.Exit(code)
}

func run(args []string) int {
	if len(args) > 0 {
		if sub := subcommand(args[0]); sub != nil {
			releaseInit()
			return sub(args[1:])
		}
	}
	f, err := parseFlags(args)
	if err != nil {
		if err == errHelp {
			usage(os.Stdout)
			return 0
		}
		fmt.Fprintln(os.Stderr, "gantry:", err)
		return 2
	}
	defer startProfile()()
	return runPrint(f)
}

// subcommand is the sub-command a first argument names, or nil.
func subcommand(name string) func(args []string) int {
	switch name {
	case "acp":
		return runACP
	case "mcp":
		return runMCP
	case "sessions":
		return runSessions
	case "rewind":
		return runRewind
	case "tool":
		return runTool
	case "prompt":
		return runPromptCmd
	case "doctor":
		return runDoctor
	case "plugin":
		return runPlugin
	case "version", "--version", "-v":
		return runVersion
	case "help":
		return func([]string) int {
			usage(os.Stdout)
			return 0
		}
	}
	return nil
}

// runVersion prints the version line.
func runVersion(args []string) int {
	fs := flag.NewFlagSet("version", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if code, ok := parseCommand(fs, args, "version", "usage: gantry version"); !ok {
		return code
	}
	fmt.Println(version.Line())
	return 0
}

// releaseInit releases the pages package initialisation touched (trim_linux.go), once.
// The terminal UI and the sub-commands do it as they start; print mode once the
// model's answer starts (runPrompt): by then the start-up path has run on the pages it
// found mapped, instead of mapping them again (0.5 ms sooner to the first request), and
// the pages it used are released with the rest (1.4 MB less at the peak; both
// measured with bench/startup and bench/peer, docs/benchmarks.md).
var releaseInit = sync.OnceFunc(releaseInitPages)

// startProfile starts the CPU profiler of a -tags gantryprof build; else it does nothing.
var startProfile = func() func() { return func() {} }
