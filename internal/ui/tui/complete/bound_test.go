package complete

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"testing"
	"time"
)

// TestFilesHugeTreeIsBounded walks a tree larger than the bound. Files's bound is
// 20,000 entries; creating that many files takes seconds on a busy machine, so the
// tree and the bound here are ten times smaller: the mechanism is the same.
func TestFilesHugeTreeIsBounded(t *testing.T) {
	const dirs, each, bound = 30, 100, maxVisit / 10 // 3,000 files, 3,030 entries
	root := t.TempDir()
	for d := range dirs {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", d))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for f := range each {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	got, st := files(root, "f1", 10, bound, time.Minute)
	if !st.stopped {
		t.Fatalf("the walk of %d entries was not cut short: %+v", dirs*(each+1), st)
	}
	if st.admitted != bound {
		t.Errorf("%d entries admitted, bound %d", st.admitted, bound)
	}
	// After the bound, only the folders being read when it was reached are finished.
	if slack := int64(runtime.GOMAXPROCS(0) * (max(dirs, each) + 1)); st.examined > bound+slack {
		t.Errorf("%d entries examined, bound %d + %d", st.examined, bound, slack)
	}
	if len(got) != 10 {
		t.Errorf("%d candidates, want 10", len(got))
	}
}

func TestFilesSmallBound(t *testing.T) {
	root := tree(t, project...)
	got, st := files(root, "", 0, 5, time.Minute)
	if !st.stopped || st.admitted != 5 {
		t.Fatalf("stats %+v", st)
	}
	if len(got) > 5+5 { // at most 5 files and as many folders
		t.Fatalf("%d candidates: %q", len(got), texts(got))
	}
}

func TestFilesSpentBudget(t *testing.T) {
	root := tree(t, project...)
	got, st := files(root, "", 0, maxVisit, 0)
	if !st.stopped {
		t.Fatalf("stats %+v", st)
	}
	if len(got) != 0 {
		t.Fatalf("nothing should be walked without time: %q", texts(got))
	}
}
