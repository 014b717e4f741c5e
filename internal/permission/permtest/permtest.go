// Package permtest builds the gates the tests of tools run their calls under.
package permtest

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Yolo is the engine of a yolo session in dir — where only deny rules protect — with
// the deny rules, knowing read_file and write_file and the file families of tools (by
// name), so that a rule of read_file or write_file covers them.
func Yolo(t testing.TB, dir string, tools map[string]tool.Files, deny ...string) *permission.Engine {
	t.Helper()
	e, err := permission.NewEngine(permission.ModeYolo, nil, deny)
	if err != nil {
		t.Fatal(err)
	}
	e.SetProject(dir)
	fams := map[string]tool.Files{"read_file": tool.FilesRead, "write_file": tool.FilesWrite}
	for name, f := range tools {
		fams[name] = f
	}
	e.SetFileTools(fams)
	return e
}
