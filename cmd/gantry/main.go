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
		if subcommands[args[0]] {
			releaseInit()
		}
		switch args[0] {
		case "acp":
			return runACP(args[1:])
		case "mcp":
			return runMCP(args[1:])
		case "sessions":
			return runSessions(args[1:])
		case "rewind":
			return runRewind(args[1:])
		case "tool":
			return runTool(args[1:])
		case "prompt":
			return runPromptCmd(args[1:])
		case "doctor":
			return runDoctor(args[1:])
		case "plugin":
			return runPlugin(args[1:])
		case "version", "--version", "-v":
			fs := flag.NewFlagSet("version", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			if code, ok := parseCommand(fs, args[1:], "version", "usage: gantry version"); !ok {
				return code
			}
			fmt.Println(version.Line())
			return 0
		case "help":
			usage(os.Stdout)
			return 0
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

// subcommands are the first arguments run takes as a sub-command.
var subcommands = map[string]bool{
	"acp": true, "mcp": true, "sessions": true, "rewind": true, "tool": true, "prompt": true,
	"doctor": true, "plugin": true, "version": true, "--version": true, "-v": true, "help": true,
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
