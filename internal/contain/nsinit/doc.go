// Package nsinit is the init of a contained command's PID namespace: gantry's own
// binary started again with Arg as its first argument (see package contain). It is a
// package of its own, importing only the standard library's first packages, so that
// Go initialises it, and its init takes the helper's way, before the hundreds of
// packages of gantry's binary that a helper never uses: package initialisation runs
// in import-path order among the packages whose imports are done, and nothing here
// waits for encoding/json, os/exec, path/filepath or golang.org/x/sys. What needs more
// (Landlock) is passed in by package contain, whose init runs the helper then.
package nsinit

// Arg, as the first argument, runs the binary as the namespace's init.
const Arg = "__gantry_contain"

// The file descriptors the helper gets, after stdin, stdout and stderr.
const (
	LifelineFD = 3 // read end of a pipe whose write end only gantry holds
	SuperFD    = 4 // with -s: the socket the seccomp listener is sent back on
)

// LandlockFlag is the flag (followed by its value) that needs Landlock, which this
// package leaves to its caller.
const LandlockFlag = "-l="
