package debugtool

import (
	"strings"
	"testing"
)

// A refused evaluate says the exception, not the traceback's first line; the whole
// traceback follows.
func TestDebugRefusedEvaluate(t *testing.T) {
	h := newHarness(t, Options{})
	h.setup(cases["python"])
	h.ok(A{"operation": "breakpoints", "file": "prog.py", "lines": []int{10}})
	h.ok(A{"operation": "launch", "program": "prog.py"}, "Stopped (breakpoint")
	r := h.fails(A{"operation": "evaluate", "expression": "nope + 1"}, "Traceback (most recent call last)")
	first, _, _ := strings.Cut(r.Text, "\n")
	if first != "The debugpy adapter refused the expression: NameError: name 'nope' is not defined." {
		t.Errorf("first line %q of:\n%s", first, r.Text)
	}
	h.fails(A{"operation": "evaluate", "expression": "1/0"}, "refused the expression: ZeroDivisionError: division by zero.")
	h.ok(A{"operation": "evaluate", "expression": "p.x * p.y"}, "= 2") // the session goes on
}

// The program's output and the adapter's own lines are apart: delve's "Building …"
// and "Type 'dlv help'…" are not the program's.
func TestDebugAdapterMessagesApart(t *testing.T) {
	h := newHarness(t, Options{})
	h.setup(cases["go"])
	h.write("main.go", "package main\n\nimport \"fmt\"\n\nfunc main() {\n\tfmt.Println(\"the program's line\")\n}\n")
	r := h.ok(A{"operation": "launch", "program": "."}, "exited with code 0", "Output:\n", "The delve adapter's own messages (not the program's output):\n")
	out, messages, _ := strings.Cut(r.Text, "The delve adapter's own messages")
	_, out, _ = strings.Cut(out, "Output:\n")
	if strings.TrimSpace(out) != "the program's line" {
		t.Errorf("the program's output: %q", out)
	}
	for _, want := range []string{"Building ", "Type 'dlv help' for list of commands."} {
		if !strings.Contains(messages, want) {
			t.Errorf("%q not in the adapter's messages: %q", want, messages)
		}
	}
}

// A program a signal killed is said to be, by the signal's name, for each adapter.
func TestDebugKilledBySignal(t *testing.T) {
	for _, c := range []struct {
		lang, file, text, program string
		crashStop                 bool // the adapter stops at the crash first
		want                      string
	}{
		{lang: "go", file: "main.go", program: ".", want: "SIGKILL (signal 9",
			text: "package main\n\nimport (\n\t\"os\"\n\t\"syscall\"\n)\n\nfunc main() {\n\tsyscall.Kill(os.Getpid(), syscall.SIGKILL)\n}\n"},
		{lang: "python", file: "prog.py", program: "prog.py", want: "SIGSEGV (signal 11",
			text: "import os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n"},
		{lang: "c", file: "prog.c", program: "prog", crashStop: true, want: "SIGSEGV (signal 11",
			text: "int main(void) {\n  volatile int *p = 0;\n  *p = 1;\n  return 0;\n}\n"},
	} {
		t.Run(c.lang, func(t *testing.T) {
			lc := cases[c.lang]
			h := newHarness(t, Options{})
			h.setup(lc)
			h.write(c.file, c.text)
			if lc.build != nil {
				lc.build(t, h.dir)
			}
			r := h.call(A{"operation": "launch", "program": c.program})
			if c.crashStop {
				if !strings.Contains(r.Text, "Stopped (exception: signal SIGSEGV") {
					t.Fatalf("launch: %s", r.Text)
				}
				r = h.call(A{"operation": "continue"})
			}
			if r.IsError || !strings.Contains(r.Text, "The program was killed by "+c.want) {
				t.Fatalf("the end: %s", r.Text)
			}
			if want := "killed (" + strings.Fields(c.want)[0] + ")"; r.Display.Note != want {
				t.Errorf("note %q, want %q", r.Display.Note, want)
			}
		})
	}
}
