// Package testenv is for tests that need something of the machine (a language server,
// a debug adapter, an interpreter, the desktop's programs, ripgrep, Node.js): where
// .ci/run has installed every one (it sets GANTRY_TEST_ADAPTERS), a missing one fails
// the test instead of skipping it, so that a suite cannot pass by running nothing.
// Its bounded waits (wait.go) end a test that would hang with a failure that says what
// it waited for. OnlyImports (imports.go) holds a package that must be initialised early
// to the few packages it may import.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Installed reports whether .ci/run says everything the tests need is here.
func Installed() bool { return os.Getenv("GANTRY_TEST_ADAPTERS") != "" }

// Missing ends a test whose program, server or module is not here, saying why: a skip
// on a developer's machine, a failure where everything should be installed.
func Missing(t testing.TB, why string) {
	t.Helper()
	if Installed() {
		t.Fatalf("%s (.ci/run installs it, and GANTRY_TEST_ADAPTERS says everything is installed)", why)
	}
	t.Skip(why)
}

// Need returns the path of program on the PATH; when it is not there the test ends as
// Missing says, with the package that brings it.
func Need(t testing.TB, program string) string {
	t.Helper()
	p, err := exec.LookPath(program)
	if err != nil {
		why := program + " is not installed"
		if how, ok := install[program]; ok {
			why += " (" + how + ")"
		}
		Missing(t, why)
	}
	return p
}

// Has reports whether program is on the PATH, for a test that checks many cases and
// leaves out those whose program is missing: under .ci/run a missing one fails the
// test (which goes on with the others); elsewhere the log says it was left out.
func Has(t testing.TB, program string) bool {
	t.Helper()
	if _, err := exec.LookPath(program); err == nil {
		return true
	}
	if Installed() {
		t.Errorf("%s is not installed (.ci/run installs it, and GANTRY_TEST_ADAPTERS says everything is installed)", program)
	} else {
		t.Logf("%s is not installed: the cases that need it are left out", program)
	}
	return false
}

// NeedFile ends the test as Missing says when path (a program or module outside the
// PATH) is not there; what names it and how it is installed.
func NeedFile(t testing.TB, path, what string) {
	t.Helper()
	if _, err := os.Stat(path); err != nil {
		Missing(t, what+" is not here ("+path+")")
	}
}

// install says how each program the tests run is installed; .ci/run installs them all.
var install = map[string]string{
	"bash":        "apt-get install bash",
	"bwrap":       "apt-get install bubblewrap",
	"clangd-19":   "apt-get install clangd-19",
	"dbus-daemon": "apt-get install dbus-daemon",
	"dbus-launch": "apt-get install dbus-x11",
	"dlv":         "go install github.com/go-delve/delve/cmd/dlv@v1.27.2",
	"ed":          "apt-get install ed",
	"fakeroot":    "apt-get install fakeroot",
	"fdfind":      "apt-get install fd-find",
	"gdb":         "apt-get install gdb",
	"git":         "apt-get install git",
	"go":          "the Go toolchain",
	"gopls":       "go install golang.org/x/tools/gopls@v0.23.0",
	"gtk3-demo":   "apt-get install gtk-3-examples",
	"import":      "apt-get install imagemagick",
	"lldb-dap-19": "apt-get install lldb-19",
	"make":        "apt-get install make",
	"mmdebstrap":  "apt-get install mmdebstrap",
	"node":        "apt-get install nodejs npm",
	"npm":         "apt-get install npm",
	"perl":        "apt-get install perl",
	"podman":      "apt-get install podman runc",
	"python3":     "apt-get install python3",
	"rg":          "apt-get install ripgrep",
	"script":      "apt-get install bsdutils",
	"sqlite3":     "apt-get install sqlite3",
	"ssh":         "apt-get install openssh-client",
	"strace":      "apt-get install strace",
	"tclsh":       "apt-get install tcl",
	"tmux":        "apt-get install tmux",
	"unshare":     "apt-get install util-linux",
	"Xvfb":        "apt-get install xvfb",
	"xdotool":     "apt-get install xdotool",
	"xwd":         "apt-get install x11-apps",
	"zenity":      "apt-get install zenity",
	"zip":         "apt-get install zip",
}
