package lsptool

import (
	"fmt"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"go.lsp.dev/protocol"
)

func diagAt(line uint32, msg string) protocol.Diagnostic {
	return protocol.Diagnostic{Range: protocol.Range{Start: protocol.Position{Line: line}}, Severity: protocol.DiagnosticSeverityError,
		Message: protocol.String(msg)}
}

func lines(ds []protocol.Diagnostic) string {
	var out []string
	for _, d := range ds {
		out = append(out, fmt.Sprintf("%d:%s", d.Range.Start.Line, message(d)))
	}
	return strings.Join(out, " ")
}

// TestNewDiagnosticsIsAMultisetDifference: per (severity, code, message), as many as
// there are more than before, preferring lines that had none of them; positions
// alone never make a diagnostic new.
func TestNewDiagnosticsIsAMultisetDifference(t *testing.T) {
	warn := diagAt(3, "x")
	warn.Severity = protocol.DiagnosticSeverityWarning
	coded := diagAt(3, "x")
	coded.Code = protocol.String("E1")
	for _, c := range []struct {
		name          string
		before, after []protocol.Diagnostic
		want          string
	}{
		{"two new with one message are two", nil, []protocol.Diagnostic{diagAt(4, "x"), diagAt(9, "x")}, "4:x 9:x"},
		{"one more of a message already there, on the new line",
			[]protocol.Diagnostic{diagAt(4, "x")}, []protocol.Diagnostic{diagAt(4, "x"), diagAt(7, "x")}, "7:x"},
		{"the new line first even when it comes first",
			[]protocol.Diagnostic{diagAt(7, "x")}, []protocol.Diagnostic{diagAt(2, "x"), diagAt(7, "x")}, "2:x"},
		{"moved, all of them", []protocol.Diagnostic{diagAt(4, "x"), diagAt(9, "x"), diagAt(1, "y")},
			[]protocol.Diagnostic{diagAt(5, "x"), diagAt(10, "x"), diagAt(2, "y")}, ""},
		{"one fixed, one moved", []protocol.Diagnostic{diagAt(4, "x"), diagAt(9, "x")}, []protocol.Diagnostic{diagAt(12, "x")}, ""},
		{"no new line: the later ones", []protocol.Diagnostic{diagAt(4, "x")},
			[]protocol.Diagnostic{diagAt(4, "x"), diagAt(4, "x"), diagAt(4, "x")}, "4:x 4:x"},
		{"severity and code are part of the key", []protocol.Diagnostic{diagAt(3, "x")},
			[]protocol.Diagnostic{diagAt(3, "x"), warn, coded}, "3:x 3:x"},
	} {
		if got := lines(newDiagnostics(c.before, c.after)); got != c.want {
			t.Errorf("%s: got %q, want %q", c.name, got, c.want)
		}
	}
}

// twiceGo has one error (line 4) before the session writes to it.
const twiceGo = `package shapes

func Twice() {
	var a int = "s"
	_ = a
}
`

// TestTwoIdenticalNewErrorsAreReportedTwice: with gopls, a write that adds two errors
// of the same message on two lines reports both; one that adds one more beside an old
// one reports the new line; a line inserted above them reports nothing.
func TestTwoIdenticalNewErrorsAreReportedTwice(t *testing.T) {
	needGopls(t)
	dir := shapesProject(t)
	writeTree(t, dir, map[string]string{"twice.go": twiceGo})
	m := newManager(t, lsp.Options{})
	ed := OnWrite(fs.EditFile(fs.Options{}), m, NewSeen())
	editTwice := func(old, new string) []string {
		t.Helper()
		return reported(call(t, ed, dir, A{"path": "twice.go", "edits": []A{{"old": old, "new": new}}}))
	}
	const msg = `error: cannot use "s" (untyped string constant) as int value in variable declaration [IncompatibleAssign]`
	got := editTwice("\t_ = a\n", "\t_ = a\n\tvar b int = \"s\"\n\tvar c int = \"s\"\n\t_, _ = b, c\n")
	if want := []string{"twice.go:6: " + msg, "twice.go:7: " + msg}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("two new identical errors: got %q, want %q", got, want)
	}
	// All three move down a line: nothing is new.
	if got := editTwice("func Twice() {\n", "func Twice() {\n\t_ = 0\n"); got != nil {
		t.Fatalf("errors moved by an inserted line were reported: %q", got)
	}
	// One more beside them, above the others: only it.
	got = editTwice("\t_ = 0\n", "\tvar d int = \"s\"\n\t_ = d\n")
	if want := []string{"twice.go:4: " + msg}; strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("a fourth identical error: got %q, want %q", got, want)
	}
	// Two fixed, one added: nothing new.
	if got := editTwice("\tvar b int = \"s\"\n\tvar c int = \"s\"\n", "\tvar b int = 1\n\tvar c int = 2\n\tvar e int = \"s\"\n\t_ = e\n"); got != nil {
		t.Fatalf("two fixed and one added reported %q", got)
	}
}
