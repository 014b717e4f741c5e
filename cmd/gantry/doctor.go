package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/exepages"
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
	rows = slices.Insert(rows, min(3, len(rows)), faultAroundRow())
	for _, r := range rows {
		mark := " "
		if r.Problem {
			mark = "!"
		}
		fmt.Printf("%s %-17s %s\n", mark, r.Name, r.Value)
	}
	return 0
}

// faultAroundRow says how the executable's pages are mapped (package exepages).
func faultAroundRow() app.DoctorRow {
	r := app.DoctorRow{Name: "page mapping"}
	if exepages.Registered() {
		r.Value = "each page of gantry's executable mapped as it is read (a userfaultfd turns the kernel's fault-around off)"
	} else {
		r.Value = "the kernel's fault-around (up to 64 KB of gantry's executable mapped around each page read): " + sentence(exepages.Err())
	}
	return r
}
