// Command gantry is a coding agent for the terminal and the editor. This file holds
// only the command line: flags and sub-commands; the work is in internal/.
package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/version"
)

func main() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(gcPercent) // startgc.go
	}
	releaseInitPages()
	code := run(os.Args[1:])
	contain.Cleanup() // the folder of the commands' cgroups, where there are no namespaces
	os.Exit(code)
}

func run(args []string) int {
	if len(args) > 0 {
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

// startProfile starts the CPU profiler of a -tags gantryprof build; else it does nothing.
var startProfile = func() func() { return func() {} }
