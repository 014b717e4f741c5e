package permission

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// guardOf is the exec guard of deny rules.
func guardOf(t *testing.T, deny ...string) *ExecGuard {
	t.Helper()
	e, err := NewEngine(ModeYolo, nil, deny)
	if err != nil {
		t.Fatal(err)
	}
	g := e.ExecGuard()
	if g == nil {
		t.Fatal("no guard for deny rules that name bash")
	}
	return g
}

// supervised runs script in dir under the guard and returns its output and what was
// blocked.
func supervised(t *testing.T, g *ExecGuard, dir, script string) (string, []contain.Refusal) {
	t.Helper()
	if ok, why := contain.Supervisor(); !ok {
		t.Skipf("no exec supervisor here: %s", why)
	}
	p := contain.New(script, contain.Options{Dir: dir, Judge: g.Judge, Env: []string{"LC_ALL=C"}})
	var b bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &b, &b
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Wait(context.Background(), 30*time.Second, time.Second, nil)
	if f := p.Fault(); f != "" {
		t.Fatalf("supervisor fault: %s", f)
	}
	return b.String(), p.Blocked()
}

func need(t *testing.T, programs ...string) {
	t.Helper()
	for _, p := range programs {
		testenv.Need(t, p)
	}
}

// A denied program is refused however it is reached: the file it is, not the name it
// is called by, and the programs that run it without a shell.
func TestExecGuardKnowsTheProgram(t *testing.T) {
	need(t, "make", "awk")
	mv := testenv.Need(t, "mv")
	mv, _ = filepath.EvalSymlinks(mv)
	loader := ""
	for _, l := range []string{"/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/lib/ld-linux-x86-64.so.2"} {
		if _, err := os.Stat(l); err == nil {
			loader = l
			break
		}
	}
	py := "/usr/bin/python3"
	cases := []struct{ name, setup, run string }{
		{"plainly", "", "mv a b"},
		{"by its path", "", mv + " a b"},
		{"through a symlink", "ln -s " + mv + " x", "./x a b"},
		{"through a hard link", "ln " + mv + " hl || exit 42", "./hl a b"},
		{"a byte-for-byte copy", "cp " + mv + " copy", "./copy a b"},
		{"a copy on PATH under another name", "mkdir bin && cp " + mv + " bin/relocate", "PATH=$PWD/bin:$PATH relocate a b"},
		{"through env", "", "env mv a b"},
		{"through the dynamic loader", "", loader + " " + mv + " a b"},
		{"a copy through the dynamic loader", "cp " + mv + " copy", loader + " --inhibit-cache ./copy a b"},
		{"as a script's interpreter", "printf '#!%s\\n' " + mv + " > s && chmod +x s", "./s b"},
		{"as the interpreter of a copy", "cp " + mv + " m2 && printf '#!%s/m2\\n' $PWD > s && chmod +x s", "./s b"},
		{"by make", "printf 'all:\\n\\tmv a b\\n' > Makefile", "make -s"},
		{"by make reading its makefile from stdin", "", "printf 'all:\\n\\tmv a b\\n' | make -s -f -"},
		{"by awk's system()", "", `awk 'BEGIN { system("mv a b") }'`},
		{"by Python's os.system", "", py + ` -c 'import os; os.system("mv a b")'`},
		{"by Python's os.execv", "", py + ` -c 'import os, shutil; os.execv(shutil.which("mv"), ["mv", "a", "b"])'`},
		{"from memory (memfd and fexecve)", "", py + ` -c 'import os, shutil
fd = os.memfd_create("x")
os.write(fd, open(shutil.which("mv"), "rb").read())
os.execve(fd, ["whatever", "a", "b"], {})'`},
		{"with a newline in an argument", "", "mv a $'b\\nc'"},
	}
	g := guardOf(t, `bash:mv .*`)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if strings.Contains(c.run, "python3") {
				need(t, py)
			}
			if strings.HasPrefix(c.run, " ") {
				t.Skip("no dynamic loader found here")
			}
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "a"), []byte("a"), 0o644); err != nil {
				t.Fatal(err)
			}
			if c.setup != "" {
				cmd := exec.Command("bash", "-c", c.setup)
				cmd.Dir = dir
				out, err := cmd.CombinedOutput()
				var ee *exec.ExitError
				if errors.As(err, &ee) && ee.ExitCode() == 42 {
					t.Skipf("cannot hard-link %s here (another filesystem?): %s", mv, out)
				}
				if err != nil {
					t.Fatalf("setup: %v %s", err, out)
				}
			}
			// Plain bash really does it: the trick is a real one.
			plain := t.TempDir()
			if out, err := exec.Command("cp", "-a", dir+"/.", plain).CombinedOutput(); err != nil {
				t.Fatalf("%v %s", err, out)
			}
			cmd := exec.Command("bash", "-c", c.run)
			cmd.Dir = plain
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Logf("plain bash: %v %s", err, out)
			}
			if !moved(plain) {
				t.Fatalf("the trick does not move the file in plain bash; fix the case")
			}
			out, blocked := supervised(t, g, dir, c.run)
			if moved(dir) {
				t.Fatalf("the file was moved; output %q", out)
			}
			if len(blocked) == 0 || blocked[0].Rule != "bash:mv .*" {
				t.Fatalf("nothing reported blocked (%+v); output %q", blocked, out)
			}
			if !strings.HasPrefix(blocked[0].Command, "mv ") {
				t.Errorf("blocked as %q, want the command as the rule saw it (mv …)", blocked[0].Command)
			}
		})
	}
}

// moved tells whether a test's file was moved to b (b, or b and more, for the
// newline case).
func moved(dir string) bool {
	_, errB := os.Lstat(filepath.Join(dir, "b"))
	_, errBC := os.Lstat(filepath.Join(dir, "b\nc"))
	return errB == nil || errBC == nil
}

// What no rule denies runs as it would anyway, with its real exit status.
func TestExecGuardLetsTheRestRun(t *testing.T) {
	need(t, "mv")
	g := guardOf(t, `bash:mv .*`, `bash:rm( .*)?`)
	dir := t.TempDir()
	out, blocked := supervised(t, g, dir, `echo hi > f; cat f; ls f; mkdir d && cp f d/g && cat d/g; grep -c hi f; false; echo "st=$?"`)
	if len(blocked) != 0 || out != "hi\nf\nhi\n1\nst=1\n" {
		t.Errorf("output %q, blocked %+v", out, blocked)
	}
	// A program that only shares a name's prefix is another program.
	out, blocked = supervised(t, g, dir, `mkdir -p x/y && rmdir x/y && echo ok`)
	if len(blocked) != 0 || !strings.Contains(out, "ok") {
		t.Errorf("rmdir: output %q, blocked %+v", out, blocked)
	}
}

// The guard's view of a call: the loader's options, #! lines.
func TestLoaderOperandAndShebang(t *testing.T) {
	for _, c := range []struct {
		args []string
		prog string
		rest string
	}{
		{[]string{"/usr/bin/mv", "a", "b"}, "/usr/bin/mv", "a b"},
		{[]string{"--library-path", "/x", "--argv0", "y", "./m", "a"}, "./m", "a"},
		{[]string{"--inhibit-cache", "--", "m", "-f"}, "m", "-f"},
		{[]string{"--list"}, "", ""},
	} {
		prog, rest, _ := loaderOperand(c.args)
		if prog != c.prog || strings.Join(rest, " ") != c.rest {
			t.Errorf("%q: %q %q", c.args, prog, rest)
		}
	}
	dir := t.TempDir()
	for body, want := range map[string]string{
		"#!/bin/sh\necho":          "/bin/sh|",
		"#! /usr/bin/env  python3": "/usr/bin/env|python3",
		"#!/bin/bash -e -u\n":      "/bin/bash|-e -u",
		"no shebang":               "",
		"#!":                       "",
	} {
		p := filepath.Join(dir, "s")
		if err := os.WriteFile(p, []byte(body), 0o755); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		interp, arg, ok := shebang(f)
		f.Close()
		got := ""
		if ok {
			got = interp + "|" + arg
		}
		if got != want {
			t.Errorf("%q: got %q, want %q", body, got, want)
		}
	}
	for _, n := range []string{"ld-linux-x86-64.so.2", "ld-linux-aarch64.so.1", "ld.so", "ld-musl-x86_64.so.1"} {
		if !isLoader(n) {
			t.Errorf("%s is a loader", n)
		}
	}
	if isLoader("ldd") || isLoader("ld") {
		t.Error("ldd and ld are not loaders")
	}
}

// An allowed go test runs under the supervisor as it would anyway: the compiler, the
// linker, vet and the test binary all pass.
func TestExecGuardLetsGoTestRun(t *testing.T) {
	need(t, "go")
	g := guardOf(t, `bash:mv .*`, `bash:rm -rf /.*`)
	dir := t.TempDir()
	for name, body := range map[string]string{
		"go.mod":    "module guarded\n\ngo 1.22\n",
		"a.go":      "package guarded\n\nfunc Three() int { return 3 }\n",
		"a_test.go": "package guarded\n\nimport \"testing\"\n\nfunc TestThree(t *testing.T) {\n\tif Three() != 3 {\n\t\tt.Fatal()\n\t}\n}\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, blocked := supervised(t, g, dir, "go vet ./... && go test -count=1 ./... && echo all-ok")
	if len(blocked) != 0 || !strings.Contains(out, "all-ok") {
		t.Errorf("output %q, blocked %+v", out, blocked)
	}
}
