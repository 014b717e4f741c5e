// Command gogit measures what the checkpoints' snapshot would cost with go-git (a Go
// library) instead of the git program, on the same trees as bench/checkpoint
// (docs/benchmarks.md, "Checkpoints"): a shadow repository of its own (the work tree
// is the project, the repository a temporary folder), the first snapshot (add every
// file, write the tree), then snapshots with nothing changed, median of n. It is a
// module of its own so that gantry's module does not depend on go-git.
//
//	cd bench/gogit && go run . -n 3 ../.. "$(go env GOROOT)/src"
package main

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/go-git/go-billy/v5/osfs"
	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/cache"
	"github.com/go-git/go-git/v5/plumbing/format/gitignore"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage/filesystem"
)

func main() {
	n := flag.Int("n", 10, "no-change snapshots per tree")
	flag.Parse()
	fmt.Println("| tree (go-git) | files kept | first snapshot | no-change snapshot (median, range) |")
	fmt.Println("| --- | --- | --- | --- |")
	for _, tree := range flag.Args() {
		tree, err := filepath.Abs(tree)
		check(err)
		dir, err := os.MkdirTemp("", "gogit-bench")
		check(err)
		st := filesystem.NewStorage(osfs.New(dir), cache.NewObjectLRUDefault())
		// Init would write a .git file into the work tree (pointing at the repository):
		// a bare repository, then opened with the project as its work tree, writes
		// nothing there.
		_, err = git.Init(st, nil)
		check(err)
		repo, err := git.Open(st, osfs.New(tree))
		check(err)
		w, err := repo.Worktree()
		check(err)
		// The project's ignore files, as the git program reads them.
		ps, err := gitignore.ReadPatterns(w.Filesystem, nil)
		if err != nil {
			check(fmt.Errorf("the ignore files: %w", err))
		}
		w.Excludes = append(w.Excludes, ps...)
		w.Excludes = append(w.Excludes, gitignore.ParsePattern(".git", nil))

		start := time.Now()
		first := snapshot(repo, w)
		firstD := time.Since(start)
		var ds []time.Duration
		for range *n {
			start := time.Now()
			h := snapshot(repo, w)
			ds = append(ds, time.Since(start))
			if h != first {
				check(fmt.Errorf("%s changed during the bench", tree))
			}
		}
		slices.Sort(ds)
		files := count(repo, first)
		fmt.Printf("| %s | %d | %s | %s (%s–%s) |\n", tree, files, ms(firstD), ms(ds[len(ds)/2]), ms(ds[0]), ms(ds[len(ds)-1]))
		os.RemoveAll(dir)
	}
}

// snapshot stages every file (new, changed, deleted) and returns the tree's hash, as
// the checkpoint's `add --all` and `write-tree` do (the commit is go-git's way to
// write the tree).
func snapshot(repo *git.Repository, w *git.Worktree) plumbing.Hash {
	check(w.AddWithOptions(&git.AddOptions{All: true}))
	h, err := w.Commit("snapshot", &git.CommitOptions{AllowEmptyCommits: true,
		Author: &object.Signature{Name: "bench", Email: "bench@localhost", When: time.Unix(0, 0)}})
	check(err)
	c, err := repo.CommitObject(h)
	check(err)
	return c.TreeHash
}

func count(repo *git.Repository, h plumbing.Hash) int {
	t, err := repo.TreeObject(h)
	check(err)
	n := 0
	check(t.Files().ForEach(func(*object.File) error { n++; return nil }))
	return n
}

func ms(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

func check(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "gogit:", err)
		os.Exit(1)
	}
}
