package lsptool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// A project check whose output is far past the bound (go vet on 1,500 wrong Printf
// calls) stays within maxOutput by itself, and its whole output is saved in the
// outputs folder the loop gives the call, named by the note.
func TestProjectCheckStaysWithinTheBound(t *testing.T) {
	testenv.Need(t, "go")
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("package p\n\nimport \"fmt\"\n\nfunc F() {\n")
	for i := range 1500 {
		fmt.Fprintf(&b, "\tfmt.Printf(\"%%d\\n\", \"not a number %d\")\n", i)
	}
	b.WriteString("}\n")
	writeTree(t, dir, map[string]string{"go.mod": "module p\n\ngo 1.22\n", "p.go": b.String()})
	const maxOut = 5000
	tl := Tool(newManager(t, lsp.Options{}), Options{MaxOutput: maxOut})
	out := tool.NewOutputDir(filepath.Join(t.TempDir(), "outputs"), 0)
	raw, _ := json.Marshal(A{"action": "diagnostics", "file": "*"})
	inv, msg := tl.Decode(tool.Env{Cwd: dir}, raw)
	if msg != "" {
		t.Fatal(msg)
	}
	r := inv.Run(tool.WithCallID(tool.WithOutputs(context.Background(), out), "check"))
	if n := utf8.RuneCountInString(r.Text); n > maxOut || !strings.Contains(r.Text, "$ go vet ./...") {
		t.Fatalf("%d characters:\n%s", n, r.Text)
	}
	m := regexp.MustCompile(`The whole output is saved in (\S+): read a range`).FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("no note naming the saved output:\n%s", r.Text)
	}
	saved, err := os.ReadFile(m[1])
	if err != nil || strings.Count(string(saved), "fmt.Printf format %d has arg") != 1500 {
		t.Errorf("the saved output does not hold the 1500 reports (%v):\n%.500s", err, saved)
	}
}
