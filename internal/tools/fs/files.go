package fs

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	iofs "io/fs"
	"net/http"
	"os"
	"strings"
	"syscall"
	"unicode/utf8"
)

// maxEditSize is the largest file edit_file and apply_patch load into memory, and the
// largest previous content write_file diffs against.
const maxEditSize = 256 << 20

// sniffSize is how much of the start of a file decides whether it is text.
const sniffSize = 8192

// missingFile is the seed's sentence for a path that does not exist.
func missingFile(shown string) string {
	return shown + " does not exist. Create it with write_file"
}

// statRegular stats abs (following symlinks) and returns a sentence when it is not an
// existing regular file. shown is the path as the model gave it; verb says what the tool
// wanted to do ("read", "edit").
func statRegular(shown, abs, verb string) (os.FileInfo, string) {
	info, err := os.Stat(abs)
	if err != nil {
		return nil, statFailure(shown, err)
	}
	if info.IsDir() {
		return nil, directorySentence(shown, abs, verb)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Sprintf("%s is %s, not a regular file; only regular files can be %s.", shown, modeKind(info.Mode()), verbPast(verb))
	}
	return info, ""
}

// statFailure turns a failed stat or open into a sentence.
func statFailure(shown string, err error) string {
	switch {
	case errors.Is(err, iofs.ErrNotExist), errors.Is(err, syscall.ENOTDIR):
		return missingFile(shown)
	case errors.Is(err, iofs.ErrPermission):
		return fmt.Sprintf("%s cannot be read: permission denied.", shown)
	default:
		return fmt.Sprintf("%s cannot be read: %s.", shown, bareError(err))
	}
}

// bareError strips the operation and path a *PathError repeats.
func bareError(err error) string {
	var pe *iofs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func verbPast(verb string) string {
	switch verb {
	case "read":
		return "read"
	case "write":
		return "written"
	}
	if strings.HasSuffix(verb, "e") {
		return verb + "d"
	}
	return verb + "ed"
}

func modeKind(m os.FileMode) string {
	switch {
	case m&os.ModeNamedPipe != 0:
		return "a named pipe (FIFO)"
	case m&os.ModeSocket != 0:
		return "a socket"
	case m&os.ModeCharDevice != 0:
		return "a character device"
	case m&os.ModeDevice != 0:
		return "a block device"
	default:
		return "a special file"
	}
}

// directorySentence says that shown is a directory and names a few of its entries.
func directorySentence(shown, abs, verb string) string {
	s := fmt.Sprintf("%s is a directory, not a file, so it cannot be %s", shown, verbPast(verb))
	d, err := os.Open(abs)
	if err != nil {
		return s + "."
	}
	defer d.Close()
	entries, _ := d.ReadDir(8)
	if len(entries) == 0 {
		return s + "; it is empty."
	}
	names := make([]string, 0, len(entries))
	for i, e := range entries {
		if i == 7 {
			names = append(names, "…")
			break
		}
		n := e.Name()
		if e.IsDir() {
			n += "/"
		}
		names = append(names, n)
	}
	return s + "; it holds " + strings.Join(names, ", ") + "."
}

// looksBinary reports whether head, the start of a file, is not UTF-8 text: it holds a NUL
// byte or invalid UTF-8. truncated says the file goes on after head, so a rune cut at the
// end of head is not held against it.
func looksBinary(head []byte, truncated bool) bool {
	if bytes.IndexByte(head, 0) >= 0 {
		return true
	}
	if truncated {
		// Drop an incomplete rune at the very end.
		for i := 1; i <= utf8.UTFMax-1 && i <= len(head); i++ {
			if utf8.RuneStart(head[len(head)-i]) {
				if !utf8.FullRune(head[len(head)-i:]) {
					head = head[:len(head)-i]
				}
				break
			}
		}
	}
	return !utf8.Valid(head)
}

// binarySentence describes a binary file in one line.
func binarySentence(shown string, head []byte, size int64, what string) string {
	return fmt.Sprintf("%s is a binary file (%s, %s); %s.", shown, humanSize(size), contentType(head), what)
}

func contentType(head []byte) string {
	t := http.DetectContentType(head)
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return t
}

// humanSize writes a byte count for people: 512 bytes, 1.5 KB, 2.0 GB.
func humanSize(n int64) string {
	if n < 1024 {
		if n == 1 {
			return "1 byte"
		}
		return fmt.Sprintf("%d bytes", n)
	}
	units := []string{"KB", "MB", "GB", "TB"}
	f := float64(n) / 1024
	u := 0
	for f >= 1024 && u < len(units)-1 {
		f /= 1024
		u++
	}
	return fmt.Sprintf("%.1f %s", f, units[u])
}

// loadText reads a whole text file for editing: it must exist, be regular, be at most
// maxEditSize bytes and not be binary. tool names the caller in the sentences.
func loadText(shown, abs, tool string) ([]byte, os.FileInfo, string) {
	info, msg := statRegular(shown, abs, "edit")
	if msg != "" {
		return nil, nil, msg
	}
	if info.Size() > maxEditSize {
		return nil, nil, fmt.Sprintf("%s is too large to edit (%s; %s handles files up to %s); change it with a shell command instead.", shown, humanSize(info.Size()), tool, humanSize(maxEditSize))
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, nil, statFailure(shown, err)
	}
	defer f.Close()
	// Read into a buffer of the size the file had, plus room to notice that it grew,
	// instead of letting ReadAll double its way up to it.
	buf := bytes.NewBuffer(make([]byte, 0, info.Size()+512))
	_, err = buf.ReadFrom(io.LimitReader(f, maxEditSize+1))
	data := buf.Bytes()
	if err != nil {
		return nil, nil, statFailure(shown, err)
	}
	if len(data) > maxEditSize {
		return nil, nil, fmt.Sprintf("%s grew past %s while being read; %s handles files up to that size.", shown, humanSize(maxEditSize), tool)
	}
	head := data[:min(len(data), sniffSize)]
	if looksBinary(head, len(data) > len(head)) {
		return nil, nil, binarySentence(shown, head, int64(len(data)), tool+" changes only text files")
	}
	return data, info, ""
}
