package tool

import (
	"errors"
	"fmt"
	"sort"
	"strings"
)

// FileGuard is the session's path rules asked about one file a call is about to read
// or write: the second, per-file check after the gate's check of the call's principal.
// A tool asks it for every file it opens or writes — the files a search walks into, the
// files a workspace edit touches, both ends of a move — before it reads or writes
// anything, so that a file a rule denies is never quoted in a result or an error.
// The paths are absolute; the guard resolves their symbolic links itself.
type FileGuard interface {
	// Read returns nil when the file may be read, else a *FileDenied.
	Read(abs string) error
	// Write returns nil when the file may be written (created, moved, deleted), else
	// a *FileDenied.
	Write(abs string) error
}

// FileDenied is a guard's refusal: the file as the rules see it (relative to the
// project when inside it) and the rule that denies it.
type FileDenied struct {
	Path  string
	Rule  string
	Write bool
}

func (d *FileDenied) Error() string {
	verb := "reading"
	if d.Write {
		verb = "writing"
	}
	return fmt.Sprintf("%s %s is denied by the rule %s", verb, d.Path, d.Rule)
}

// Skipped is the line a tool that walks files (grep, glob) adds for a file it left out
// because a rule denies reading it: "[skipped secret/.env: denied by read_file:\.env]".
func (d *FileDenied) Skipped() string {
	return fmt.Sprintf("[skipped %s: denied by %s]", d.Path, d.Rule)
}

// AsFileDenied returns the refusal in err, if it is one.
func AsFileDenied(err error) (*FileDenied, bool) {
	var d *FileDenied
	ok := errors.As(err, &d)
	return d, ok
}

// CanRead asks the call's file guard whether abs may be read (nil guard: yes).
func (e Env) CanRead(abs string) error {
	if e.Files == nil {
		return nil
	}
	return e.Files.Read(abs)
}

// CanWrite asks the call's file guard whether abs may be written (nil guard: yes).
func (e Env) CanWrite(abs string) error {
	if e.Files == nil {
		return nil
	}
	return e.Files.Write(abs)
}

// CanChange asks whether abs may be both read and written: a tool that rewrites a file
// from its content (edit_file, apply_patch, a rename) reads it first, and may show it
// in an error or a diff.
func (e Env) CanChange(abs string) error {
	if err := e.CanRead(abs); err != nil {
		return err
	}
	return e.CanWrite(abs)
}

// CanChangeAll checks every file of a change that touches several before any is
// written: the first refusal, or nil when all may be changed.
func (e Env) CanChangeAll(abs []string) error {
	for _, p := range abs {
		if err := e.CanChange(p); err != nil {
			return err
		}
	}
	return nil
}

// maxSkipped is how many skipped files a result names; the rest are counted.
const maxSkipped = 10

// SkippedNote is the lines of the files a call left out for a rule (FileDenied.Skipped),
// sorted, the first few named and the others counted, so that a denied folder of many
// files does not fill the output; "" when there are none.
func SkippedNote(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	lines = append([]string(nil), lines...)
	sort.Strings(lines)
	if n := len(lines) - maxSkipped; n > 0 {
		lines = append(lines[:maxSkipped], fmt.Sprintf("[skipped %d more files that rules deny reading]", n))
	}
	return strings.Join(lines, "\n")
}
