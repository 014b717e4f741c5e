package refs

import (
	"bytes"
	"errors"
	"fmt"
	"html"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// maxInsertBytes is the largest file read for insertion; a larger one is described in
// one line instead.
const maxInsertBytes = 16 << 20

// sniffSize is how much of a file's start decides whether it is binary.
const sniffSize = 8000

// insert returns the labelled block of the file or folder at abs, shown as shown, or a
// short reason why it cannot be inserted.
func insert(abs, shown string, maxOutput int) (block, reason string) {
	info, err := os.Stat(abs) // before opening: opening a named pipe would block
	switch {
	case err != nil:
		return "", failure(err)
	case !info.IsDir() && !info.Mode().IsRegular():
		return "", "not a regular file or folder"
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", failure(err)
	}
	defer f.Close()
	if info.IsDir() {
		return folder(f, abs, shown, maxOutput)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxInsertBytes+1))
	if err != nil {
		return "", failure(err)
	}
	label := fmt.Sprintf("<file path=\"%s\">", html.EscapeString(shown))
	switch head := data[:min(len(data), sniffSize)]; {
	case len(data) > maxInsertBytes:
		return fmt.Sprintf("%s\n(a file of %d bytes, too large to insert: read parts of it with read_file or grep)\n</file>", label, info.Size()), ""
	case bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data):
		return fmt.Sprintf("%s\n(a binary file: %s, %d bytes; not inserted)\n</file>", label, contentType(head), len(data)), ""
	}
	return label + "\n" + withNewline(bound(string(data), maxOutput)) + "</file>", ""
}

// folder returns the listing of an open folder: one entry per line, sorted, with a
// trailing / for folders (symbolic links followed).
func folder(f *os.File, abs, shown string, maxOutput int) (block, reason string) {
	entries, err := f.ReadDir(-1)
	if err != nil {
		return "", failure(err)
	}
	names := make([]string, 0, len(entries))
	for _, e := range entries {
		name := e.Name()
		if isDir(e, filepath.Join(abs, name)) {
			name += "/"
		}
		names = append(names, name)
	}
	slices.Sort(names)
	listing := "(empty folder)\n"
	if len(names) > 0 {
		listing = withNewline(bound(strings.Join(names, "\n"), maxOutput))
	}
	if !strings.HasSuffix(shown, "/") {
		shown += "/"
	}
	return fmt.Sprintf("<folder path=\"%s\">\n%s</folder>", html.EscapeString(shown), listing), ""
}

// isDir tells whether the entry e, at path, is a folder or a link to one.
func isDir(e fs.DirEntry, path string) bool {
	if e.Type()&fs.ModeSymlink != 0 {
		fi, err := os.Stat(path)
		return err == nil && fi.IsDir()
	}
	return e.IsDir()
}

// failure turns an error opening or reading a file into a short reason.
func failure(err error) string {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "no such file or folder"
	case errors.Is(err, fs.ErrPermission):
		return "permission denied"
	}
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return err.Error()
}

func contentType(head []byte) string {
	t := http.DetectContentType(head)
	if i := strings.IndexByte(t, ';'); i >= 0 {
		t = t[:i]
	}
	return t
}

// bound applies tool.Bound: at most max characters, head and tail kept, the cut said.
func bound(s string, max int) string { return tool.Bound(s, max) }

// withNewline ends s with a newline, so the closing tag has a line of its own.
func withNewline(s string) string {
	if strings.HasSuffix(s, "\n") {
		return s
	}
	return s + "\n"
}
