package nsinit

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// early are the packages nsinit may import: the standard library's first ones, which
// Go initialises before gantry's other packages. One more (encoding/json, os/exec,
// path/filepath, golang.org/x/...) would make every helper wait for much of gantry's
// package initialisation again.
var early = map[string]bool{
	"errors": true, "fmt": true, "os": true, "os/signal": true, "runtime": true,
	"strconv": true, "strings": true, "sync/atomic": true, "syscall": true, "time": true,
	"unsafe": true,
}

func TestImportsOnlyEarlyPackages(t *testing.T) {
	testenv.OnlyImports(t, early, "Go may initialise it after much of gantry: the helper would wait for it")
}
