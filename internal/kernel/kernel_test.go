package kernel

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// debianPython has Debian's pandas and matplotlib (the PATH's python3 may not).
const debianPython = "/usr/bin/python3"

func needInterpreter(t *testing.T, lang string) string {
	t.Helper()
	p := debianPython
	if lang == "javascript" {
		p = testenv.Need(t, "node")
	} else {
		testenv.NeedFile(t, p, "Debian's Python")
	}
	return p
}

func start(t *testing.T, lang string) *Kernel {
	t.Helper()
	k, err := Start(context.Background(), Options{Language: lang, Interpreter: needInterpreter(t, lang), Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(k.Close)
	return k
}

func run(t *testing.T, k *Kernel, code string) *Cell {
	t.Helper()
	c, err := k.Run(context.Background(), code, RunOptions{Idle: time.Minute, Relay: func(_ context.Context, name string, args json.RawMessage) (string, bool) {
		if name == "refuse" {
			return "refused: " + string(args), true
		}
		return "ran " + name + " " + string(args), false
	}})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func text(c *Cell) string {
	var b strings.Builder
	for _, it := range c.Items {
		b.WriteString("[" + it.Kind + "]" + it.Text)
	}
	if c.Error != "" {
		b.WriteString("[error]" + c.Error)
	}
	return b.String()
}

func TestPythonBasics(t *testing.T) {
	k := start(t, "python")
	for _, c := range []struct{ code, want string }{
		{"x = 40\nx + 2", "[text]42"},
		{"print('a'); import os; os.system('echo b'); print('c')\nx", "[stdout]a\nb\nc\n[text]40"},
		{"display('shown'); 'last'", "[text]'shown'[text]'last'"},
		{"1/0", "ZeroDivisionError: division by zero"},
		{"print(tool('read_file', {'path': 'a'}))", "[stdout]ran read_file {\"path\": \"a\"}\n"},
		{"try:\n    tool('refuse', {'x': 1})\nexcept ToolError as e:\n    print('caught', e)", "[stdout]caught refused: {\"x\": 1}\n"},
		{"!echo shell", "[stdout]shell\n"},
		{"%%bash\necho cellmagic", "[stdout]cellmagic\n"},
		{"y = !echo captured\ny", "[text]['captured']"},
	} {
		got := text(run(t, k, c.code))
		if !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.code, got, c.want)
		}
	}
}

func TestNodeBasics(t *testing.T) {
	k := start(t, "javascript")
	for _, c := range []struct{ code, want string }{
		{"let x = 40\nx + 2", "[text]42"},
		{"let x = 1; x", "[text]1"},
		{"const f = async () => 5; await f()", "[text]5"},
		{"function g(a) { return a * 2 }\ng(21)", "[text]42"},
		{"g(1)", "[text]2"},
		{"console.log('a'); display({b: 1}); 'c'", "[stdout]a\n[text]{ b: 1 }[text]'c'"},
		{"await tool('read_file', {path: 'a'})", "ran read_file"},
		{"throw new Error('boom')", "Error: boom"},
	} {
		got := text(run(t, k, c.code))
		if !strings.Contains(got, c.want) {
			t.Errorf("%q:\n got %q\nwant %q", c.code, got, c.want)
		}
	}
}
