// Package lsptest holds what tests of other packages need of the language servers.
package lsptest

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// NeedGopls ends t as testenv.Missing says when gopls cannot be found where gantry
// looks for it (PATH, then Go's bin folders).
func NeedGopls(t testing.TB) {
	t.Helper()
	if lsp.NewManager(nil, lsp.Options{}).Binaries()["gopls"] == "" {
		testenv.Missing(t, "gopls is not installed (go install golang.org/x/tools/gopls@v0.23.0); skipping the real-server test")
	}
}
