package debugtool

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// denyRead is a file guard that denies reading one file.
type denyRead string

func (d denyRead) Read(abs string) error {
	if abs == string(d) {
		return &tool.FileDenied{Path: filepath.Base(abs), Rule: `read_file:key\.py`}
	}
	return nil
}

func (denyRead) Write(string) error { return nil }

// A stop in a read-denied file names the place, not the file's line.
func TestDebugStopQuotesNoDeniedLine(t *testing.T) {
	for _, guarded := range []bool{false, true} {
		h := newHarness(t, Options{})
		h.setup(cases["python"])
		key := h.write("key.py", "def key():\n    secret = \"hunter2\"\n    return secret\n")
		h.write("usekey.py", "import key\nprint(len(key.key()))\n")
		if guarded {
			h.files = denyRead(key)
		}
		h.ok(A{"operation": "breakpoints", "file": "key.py", "lines": []int{2}})
		r := h.ok(A{"operation": "launch", "program": "usekey.py"}, "key.py:2")
		switch leaked := strings.Contains(r.Text, "hunter2"); {
		case !guarded && !leaked:
			t.Fatalf("with no rule the stop does not quote the line, so the test proves nothing:\n%s", r.Text)
		case guarded && leaked:
			t.Fatalf("the stop quotes the read-denied file:\n%s", r.Text)
		}
		h.ok(A{"operation": "terminate"}, "Terminated")
	}
}
