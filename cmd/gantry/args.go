package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"
)

// parseArgs is the one rule of gantry's command line, for every sub-command: fs's
// flags may come before or after the positional arguments, in any order, and "--"
// ends the flags (every word after it is positional, even one that starts with a
// dash). It returns the positional arguments in their order.
func parseArgs(fs *flag.FlagSet, args []string) ([]string, error) {
	var words []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return words, err
		}
		rest := fs.Args()
		if used := args[:len(args)-len(rest)]; endedFlags(fs, used) {
			return append(words, rest...), nil
		}
		if len(rest) == 0 {
			break
		}
		words = append(words, rest[0])
		args = rest[1:]
	}
	return words, nil
}

// endedFlags says whether the words fs.Parse just read ended with a "--" that ends
// the flags, not one given as the value of the flag before it (--system-prompt --).
func endedFlags(fs *flag.FlagSet, used []string) bool {
	n := len(used)
	if n == 0 || used[n-1] != "--" {
		return false
	}
	if n == 1 {
		return true
	}
	prev := used[n-2]
	if !strings.HasPrefix(prev, "-") || strings.Contains(prev, "=") || prev == "--" {
		return true
	}
	f := fs.Lookup(strings.TrimLeft(prev, "-"))
	if f == nil {
		return true
	}
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag() // a bool flag takes no value: the "--" was the end
}

// parseCommandWords parses a sub-command's flags by parseArgs (its name as people
// type it, its usage line) and returns its positional arguments: -h prints the usage
// on out and ends with 0; a bad flag says so on errOut and ends with 2. ok is false
// when the command ends there.
func parseCommandWords(fs *flag.FlagSet, args []string, name, usage string, out, errOut io.Writer) (words []string, code int, ok bool) {
	words, err := parseArgs(fs, args)
	if err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(out, usage)
			return nil, 0, false
		}
		fmt.Fprintf(errOut, "gantry %s: %s; %s\n", name, flagError(err), usage)
		return nil, 2, false
	}
	return words, 0, true
}

// parseCommand parses the flags of a sub-command that takes no positional argument,
// as parseCommandWords does; an argument it takes none of says so and ends with 2.
func parseCommand(fs *flag.FlagSet, args []string, name, usage string) (code int, ok bool) {
	words, code, ok := parseCommandWords(fs, args, name, usage, os.Stdout, os.Stderr)
	if !ok {
		return code, false
	}
	if len(words) > 0 {
		fmt.Fprintf(os.Stderr, "gantry %s: unexpected argument %q; %s\n", name, words[0], usage)
		return 2, false
	}
	return 0, true
}
