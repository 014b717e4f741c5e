package nsinit

import (
	"errors"
	"os"
	"strings"
	"syscall"
)

// lookPath is os/exec's LookPath (which would wait for path/filepath's
// initialisation): name itself when it holds a slash, else the first executable file
// of that name in PATH's folders; one found in a relative folder is refused, as
// os/exec refuses it.
func lookPath(name string) (string, error) {
	if strings.Contains(name, "/") {
		if err := executable(name); err != nil {
			return "", &lookError{name, err}
		}
		return name, nil
	}
	for _, dir := range strings.Split(os.Getenv("PATH"), ":") {
		if dir == "" {
			dir = "."
		}
		p := strings.TrimSuffix(dir, "/") + "/" + name
		if executable(p) != nil {
			continue
		}
		if !strings.HasPrefix(p, "/") {
			return "", &lookError{name, errors.New("cannot run executable found relative to current directory")}
		}
		return p, nil
	}
	return "", &lookError{name, errors.New("executable file not found in $PATH")}
}

// executable says why the file at p cannot be run (nil when it can).
func executable(p string) error {
	fi, err := os.Stat(p)
	if err != nil {
		return err
	}
	if fi.IsDir() {
		return syscall.EISDIR
	}
	return syscall.Access(p, 1 /* X_OK */)
}

// lookError is os/exec's Error: the program and why it was not found.
type lookError struct {
	name string
	err  error
}

func (e *lookError) Error() string { return "exec: " + `"` + e.name + `": ` + e.err.Error() }

func (e *lookError) Unwrap() error { return e.err }
