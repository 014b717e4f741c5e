package walk

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func gorootSrc(tb testing.TB) string {
	tb.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		testenv.Missing(tb, fmt.Sprintf("go env GOROOT: %v", err))
	}
	return filepath.Join(strings.TrimSpace(string(out)), "src")
}

// TestGorootLikeRipgrep lists the Go sources, a tree no one here wrote, as rg does.
func TestGorootLikeRipgrep(t *testing.T) {
	rg := testenv.Need(t, "rg")
	src := gorootSrc(t)
	got, err := Files(context.Background(), src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(rg, "--files", "--no-config")
	cmd.Dir = src
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
	sort.Strings(want)
	if len(got) != len(want) {
		t.Fatalf("walk lists %d files, rg %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("first difference at %d: %q vs rg %q", i, got[i], want[i])
		}
	}
}

func BenchmarkWalkGoroot(b *testing.B) {
	src := gorootSrc(b)
	for b.Loop() {
		var n atomic.Int64
		if err := Walk(context.Background(), src, Options{}, func(string, fs.DirEntry) { n.Add(1) }); err != nil {
			b.Fatal(err)
		}
	}
}
