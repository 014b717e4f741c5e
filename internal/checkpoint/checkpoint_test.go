package checkpoint

import (
	"bytes"
	"context"
	"crypto/rand"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/testenv"
)

func write(t *testing.T, dir, name, text string, mode os.FileMode) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(p, mode); err != nil {
		t.Fatal(err)
	}
}

func sh(t *testing.T, dir, script string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return string(out)
}

// tree lists every file under dir but .git: path, mode, content.
func tree(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	_ = filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		if rel == ".git" && fi.IsDir() {
			return filepath.SkipDir
		}
		if fi.IsDir() {
			lines = append(lines, rel+"/ dir")
			return nil
		}
		b, _ := os.ReadFile(p)
		lines = append(lines, rel+" "+fi.Mode().String()+" "+string(b))
		return nil
	})
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// Every kind of change — an edit, sed -i, echo >, rm, mv, a new folder, a mode — is
// undone byte for byte, and the project's own .git is untouched.
func TestSnapshotAndRestore(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "main.go", "package main\n\nfunc main() {}\n", 0o644)
	write(t, dir, "run.sh", "#!/bin/sh\necho hi\n", 0o755)
	write(t, dir, "docs/a.md", "# A\nline\n", 0o644)
	write(t, dir, "gone.txt", "to be removed\n", 0o644)
	write(t, dir, "moved.txt", "to be moved\n", 0o644)
	write(t, dir, ".gitignore", "build/\n", 0o644)
	write(t, dir, "build/out.bin", "ignored output\n", 0o644)
	sh(t, dir, "git init -q && git add -A && git -c user.name=t -c user.email=t@t commit -qm init && echo 'local change' >> main.go")
	gitState := func() string {
		// The index's sum first: status (without optional locks) does not rewrite it.
		return sh(t, dir, "md5sum .git/index && find .git -type f | sort | xargs md5sum && git --no-optional-locks status --porcelain=v2 --branch && git for-each-ref")
	}
	before := gitState()
	want := tree(t, dir)

	r, err := Open(dir, Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	cp, err := r.Snapshot(context.Background(), "refs/gantry/s1/1", "prompt 1")
	if err != nil {
		t.Fatal(err)
	}
	// The changes of a turn.
	write(t, dir, "main.go", "package main\n\nfunc main() { println(1) }\n", 0o644)
	sh(t, dir, "sed -i 's/hi/bye/' run.sh && chmod 644 run.sh && echo new > docs/a.md && rm gone.txt && mv moved.txt docs/moved.txt && mkdir -p newdir/deep && echo x > newdir/deep/f.txt && echo more >> build/out.bin")
	changes, err := r.Restore(context.Background(), cp, "refs/gantry/s1/undo")
	if err != nil {
		t.Fatal(err)
	}
	if got := tree(t, dir); got != strings.Replace(want, "ignored output\n", "ignored output\nmore\n", 1) {
		t.Errorf("after the restore:\n%s\n\nwant:\n%s", got, want)
	}
	if len(changes) < 6 {
		t.Errorf("changes: %+v", changes)
	}
	if after := gitState(); after != before {
		t.Errorf("the project's git changed:\n%s\n---\n%s", before, after)
	}
	// The restore can be undone.
	undo, err := r.Resolve(context.Background(), "refs/gantry/s1/undo")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Restore(context.Background(), undo, "refs/gantry/s1/undo2"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "newdir/deep/f.txt")); string(b) != "x\n" {
		t.Errorf("the undo of the restore: %q", b)
	}
}

// A file over the bound is not kept, and said; an unchanged tree gives the same
// checkpoint.
func TestBoundAndNoChange(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "small.txt", "small\n", 0o644)
	big := make([]byte, 2<<20)
	_, _ = rand.Read(big)
	if err := os.WriteFile(filepath.Join(dir, "big.bin"), big, 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := Open(dir, Options{Root: t.TempDir(), MaxFile: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	a, err := r.Snapshot(context.Background(), "refs/gantry/s/1", "one")
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Skipped) != 1 || a.Skipped[0] != "big.bin" {
		t.Errorf("skipped %v", a.Skipped)
	}
	b, err := r.Snapshot(context.Background(), "refs/gantry/s/1", "one again")
	if err != nil {
		t.Fatal(err)
	}
	if a.Commit != b.Commit || len(b.Skipped) != 1 {
		t.Errorf("an unchanged tree: %v then %v", a, b)
	}
	out, _ := exec.Command("git", "--git-dir", r.Dir(), "ls-tree", "-r", "--name-only", a.Commit).Output()
	if bytes.Contains(out, []byte("big.bin")) || !bytes.Contains(out, []byte("small.txt")) {
		t.Errorf("kept: %s", out)
	}
}

// Two processes' sessions in one project take turns on the shadow repository, and a
// git killed mid-way (its index.lock left) does not stop the next snapshot.
func TestConcurrentAndStaleLock(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.txt", "a\n", 0o644)
	root := t.TempDir()
	r1, err := Open(dir, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	r2, err := Open(dir, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	errs := make(chan error, 20)
	for i := range 10 {
		go func() {
			_, err := r1.Snapshot(context.Background(), "refs/gantry/one/"+strings.Repeat("x", i+1), "one")
			errs <- err
		}()
		go func() {
			write(t, dir, "b.txt", strings.Repeat("b", i)+"\n", 0o644)
			_, err := r2.Snapshot(context.Background(), "refs/gantry/two/"+strings.Repeat("y", i+1), "two")
			errs <- err
		}()
	}
	for range 20 {
		if err := testenv.Recv(t, errs, testenv.Bound, "a concurrent snapshot"); err != nil {
			t.Error(err)
		}
	}
	if err := os.WriteFile(filepath.Join(r1.Dir(), "index.lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := r1.Snapshot(context.Background(), "refs/gantry/after", "after a killed git"); err != nil {
		t.Errorf("a stale index.lock: %v", err)
	}
}

// A home folder is not kept, nor a folder with more new files than the bound.
func TestRefusesHomeAndHugeFolders(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	if _, err := Open(home, Options{Root: t.TempDir()}); err == nil || !strings.Contains(err.Error(), "home folder") {
		t.Errorf("the home folder: %v", err)
	}
	dir := t.TempDir()
	for i := range 30 {
		write(t, dir, filepath.Join("d", strings.Repeat("f", i+1)), "x\n", 0o644)
	}
	old := MaxFiles
	MaxFiles = 20
	defer func() { MaxFiles = old }()
	r, err := Open(dir, Options{Root: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Snapshot(context.Background(), "refs/gantry/x/1", "x"); err == nil || !strings.Contains(err.Error(), "more than 20") {
		t.Errorf("a folder over the bound: %v", err)
	}
}

// gantry's own data folder, when it lies inside the project (the shadow repositories
// and the session store), is neither kept nor restored: a rewind never takes back the
// sessions, nor hashes the checkpoints into themselves.
func TestOwnDataFolderInsideTheProject(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, ".data")
	write(t, dir, "a.txt", "one\n", 0o644)
	write(t, data, "sessions.db", "first\n", 0o600)
	r, err := Open(dir, Options{Root: filepath.Join(data, "checkpoints"), Never: []string{data, filepath.Join(t.TempDir(), "elsewhere")}})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	cp, err := r.Snapshot(ctx, "refs/gantry/s/1", "prompt 1")
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Files(ctx, cp); n != 1 {
		t.Fatalf("%d files kept, want 1 (the data folder must not be kept)", n)
	}
	write(t, dir, "a.txt", "two\n", 0o644)
	write(t, data, "sessions.db", "second\n", 0o600)
	if _, err := r.Restore(ctx, cp, "refs/gantry/s/undo"); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "one\n" {
		t.Errorf("a.txt after the restore: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(data, "sessions.db")); string(b) != "second\n" {
		t.Errorf("the session store was restored: %q", b)
	}
}

// A file and a folder the session may not read are never kept nor restored: a
// snapshot leaves them out (and takes them out when they were kept before), a rewind
// leaves them as they are.
func TestSecretsAreNeverKept(t *testing.T) {
	work, root := t.TempDir(), t.TempDir()
	files := map[string]string{".env": "TOKEN=1\n", "secret/k": "k1\n", "a.go": "package a\n"}
	for name, text := range files {
		write(t, work, name, text, 0o644)
	}
	r, err := Open(work, Options{Root: root})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := r.Snapshot(ctx, "refs/gantry/t/0", "before the rule"); err != nil {
		t.Fatal(err)
	}
	r, err = Open(work, Options{Root: root, Secret: []string{filepath.Join(work, ".env"), filepath.Join(work, "secret")}})
	if err != nil {
		t.Fatal(err)
	}
	one, err := r.Snapshot(ctx, "refs/gantry/t/1", "one")
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Files(ctx, one); n != 1 {
		t.Errorf("the checkpoint keeps %d files, want a.go alone", n)
	}
	for name, text := range map[string]string{".env": "TOKEN=2\n", "secret/k": "k2\n", "a.go": "package b\n"} {
		write(t, work, name, text, 0o644)
	}
	if _, err := r.Restore(ctx, one, "refs/gantry/t/2"); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{".env": "TOKEN=2\n", "secret/k": "k2\n", "a.go": "package a\n"} {
		if b, _ := os.ReadFile(filepath.Join(work, name)); string(b) != want {
			t.Errorf("%s is %q after the rewind, want %q", name, b, want)
		}
	}
}
