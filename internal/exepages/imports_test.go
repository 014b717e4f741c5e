package exepages

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// early are the packages exepages may import: the standard library's first ones, and
// nsinit (itself made of them), which Go initialises before gantry's other packages.
var early = map[string]bool{
	"errors": true, "fmt": true, "os": true, "strconv": true, "strings": true,
	"syscall": true, "unsafe": true,
	"github.com/gantry-dev/gantry/internal/contain/nsinit": true,
}

func TestImportsOnlyEarlyPackages(t *testing.T) {
	testenv.OnlyImports(t, early, "Go may initialise it after much of gantry, whose reads would come before the registration, fault-around and all")
}
