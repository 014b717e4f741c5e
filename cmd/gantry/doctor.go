package main

import (
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/version"
)

// runDoctor prints one screen of what is in force here: `gantry doctor`.
func runDoctor(args []string) int {
	fs := flag.NewFlagSet("doctor", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	if code, ok := parseCommand(fs, args, "doctor", "usage: gantry doctor"); !ok {
		return code
	}
	rows, err := app.Doctor("")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	fmt.Println(version.Line())
	for _, r := range rows {
		mark := " "
		if r.Problem {
			mark = "!"
		}
		fmt.Printf("%s %-17s %s\n", mark, r.Name, r.Value)
	}
	return 0
}
