package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/checkpoint"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

const rewindUsage = "usage: gantry rewind [--list] [N] [--files-only | --conversation-only] [--force] [-C DIR]   (the folder's live session back to before its prompt N: its files and its conversation; flags before or after N)"

// runRewind is `gantry rewind`: the checkpoints of the folder's last session, and a
// return of the project's files to one of them.
func runRewind(args []string) int {
	fs := flag.NewFlagSet("rewind", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	list := fs.Bool("list", false, "")
	force := fs.Bool("force", false, "")
	filesOnly := fs.Bool("files-only", false, "")
	convOnly := fs.Bool("conversation-only", false, "")
	cwd := fs.String("C", "", "")
	words, code, ok := parseCommandWords(fs, args, "rewind", rewindUsage, os.Stdout, os.Stderr)
	if !ok {
		return code
	}
	if *filesOnly && *convOnly {
		fmt.Fprintln(os.Stderr, "gantry rewind: --files-only and --conversation-only exclude each other;", rewindUsage)
		return 2
	}
	n := 0
	switch len(words) {
	case 0:
		*list = true
	case 1:
		v, err := strconv.Atoi(words[0])
		if err != nil || v < 1 {
			fmt.Fprintf(os.Stderr, "gantry rewind: %q is not a checkpoint's number; %s\n", words[0], rewindUsage)
			return 2
		}
		n = v
	default:
		fmt.Fprintln(os.Stderr, "gantry rewind:", rewindUsage)
		return 2
	}
	a, err := app.New(app.Options{Cwd: *cwd, Continue: true, NoModel: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry rewind:", sentence(err))
		return exitCode(err)
	}
	defer func() {
		if err := a.Close(); err != nil {
			fmt.Fprintln(os.Stderr, "gantry rewind:", sentence(err))
		}
	}()
	ctx := context.Background()
	if *list {
		cps, err := a.Checkpoints(ctx)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gantry rewind:", sentence(err))
			return 1
		}
		if len(cps) == 0 {
			fmt.Printf("Session %s has no checkpoint: no prompt changed anything yet.\n", a.SessionID())
			return 0
		}
		fmt.Printf("Checkpoints of session %s (the files before each prompt's first change):\n", a.SessionID())
		for _, c := range cps {
			at := termtext.When(c.At, time.Now())
			if at != "" {
				at += "  "
			}
			fmt.Printf("%3d  %s%s\n     %s\n", c.N, at, oneLine(c.Prompt), changeSummary(c.Changes))
		}
		return 0
	}
	if !*convOnly {
		res, err := a.RewindFiles(ctx, n, *force)
		switch {
		case errors.Is(err, app.ErrChangedOutside):
			fmt.Fprintf(os.Stderr, "gantry rewind: nothing was written: these files were changed outside gantry since its last turn, and the rewind would overwrite them: %s (--force rewinds anyway)\n", strings.Join(res.Outside, ", "))
			return 1
		case err != nil:
			fmt.Fprintln(os.Stderr, "gantry rewind:", sentence(err))
			return 1
		}
		if len(res.Restored) == 0 {
			fmt.Printf("The files are as they were before prompt %d already.\n", n)
		} else {
			fmt.Printf("Restored the files as they were before prompt %d: %s\n", n, changeSummary(res.Restored))
		}
		if len(res.Skipped) > 0 {
			fmt.Printf("Not kept by the checkpoint (over the size bound), left as they are: %s\n", strings.Join(res.Skipped, ", "))
		}
		fmt.Println("The state before this rewind is kept as the next checkpoint (gantry rewind --list).")
	}
	if !*filesOnly {
		branch, err := a.RewindConversation(ctx, n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "gantry rewind:", sentence(err))
			return 1
		}
		fmt.Printf("The conversation is back to before prompt %d; what came after is kept in session %s (gantry -r %s).\n", n, branch, branch)
	}
	return 0
}

func oneLine(s string) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	if r := []rune(s); len(r) > 100 {
		s = string(r[:99]) + "…"
	}
	return s
}

// changeSummary is "3 files: M main.go (+1 -1), A made.txt (+1), D old.txt (-1)".
func changeSummary(cs []checkpoint.Change) string {
	if len(cs) == 0 {
		return "no file changed after it"
	}
	var parts []string
	for i, c := range cs {
		if i == 8 {
			parts = append(parts, fmt.Sprintf("… %d more", len(cs)-8))
			break
		}
		lines := ""
		switch {
		case c.Added < 0:
			lines = " (binary)"
		case c.Added > 0 || c.Removed > 0:
			lines = fmt.Sprintf(" (+%d -%d)", c.Added, c.Removed)
		}
		parts = append(parts, c.Status+" "+c.Path+lines)
	}
	return fmt.Sprintf("%d file(s): %s", len(cs), strings.Join(parts, ", "))
}
