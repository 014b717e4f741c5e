// Package checkpoint keeps the states of a project's whole working tree in a shadow git
// repository of gantry's own (in the data folder, one per project), so that any
// earlier state can be returned to: edits by any tool, the shell's included. The
// project's own .git — its index, refs, hooks, config — is never read or written; its
// ignore files are honoured; files over a size bound are left out, and said.
//
// It runs the git program with GIT_DIR and GIT_WORK_TREE pointed at the shadow
// repository and the project, with no system or global config, so that nothing of the
// person's git setup (hooks, filters, autocrlf) takes part. A snapshot is incremental:
// the shadow index keeps the files' stat data, so only changed files are hashed again.
package checkpoint

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gantry-dev/gantry/internal/contain"
)

// DefaultMaxFile is the size bound of a kept file.
const DefaultMaxFile = 16 << 20

// MaxFiles bounds the files one snapshot adds: a folder with more new or changed files
// than that is not a project's sources (a home folder, a data set), and is not kept.
var MaxFiles = 200_000

// Repo is the shadow repository of one project.
type Repo struct {
	dir     string // the shadow git directory
	work    string // the project's folder
	maxFile int64
	never   []string // folders inside work never kept, relative (gantry's own data)
	secret  []string // files and folders inside work the session may not read, relative
	policy  *contain.Policy

	mu sync.Mutex // one git operation at a time on the index (lock: across processes too)
}

// lock takes the repository for one operation: the process's mutex, then an advisory
// lock on a file of the repository, so that two gantry processes in one project take
// turns. Holding it, an index.lock left by a git that was killed is stale, and goes.
func (r *Repo) lock() (unlock func()) {
	r.mu.Lock()
	f, err := os.OpenFile(filepath.Join(r.dir, "gantry.lock"), os.O_CREATE|os.O_RDWR, 0o600)
	if err == nil {
		if syscall.Flock(int(f.Fd()), syscall.LOCK_EX) != nil {
			f.Close()
			f = nil
		}
	}
	_ = os.Remove(filepath.Join(r.dir, "index.lock"))
	return func() {
		if f != nil {
			_ = syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
			f.Close()
		}
		r.mu.Unlock()
	}
}

// Options configure Open.
type Options struct {
	// Root is the folder of the shadow repositories (the data folder's checkpoints/).
	Root string
	// MaxFile bounds the size of a kept file (0: DefaultMaxFile).
	MaxFile int64
	// Never are folders never kept nor restored when they lie inside the project
	// (gantry's data folder, whose sessions a rewind must not take back). Root is one
	// always.
	Never []string
	// Secret are files and folders the session may not read (the paths of its read
	// deny rules): never kept nor restored — a rewind does not touch them, and git,
	// which runs in the session's sandbox, finds them masked there.
	Secret []string
	// Policy is the session's, which git runs under like every process gantry starts
	// (nil: gantry's own); its sandbox is widened by the shadow repository.
	Policy *contain.Policy
}

// Open returns the shadow repository of the project at work, creating it the first time.
func Open(work string, o Options) (*Repo, error) {
	work, err := filepath.Abs(work)
	if err != nil {
		return nil, err
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil, errors.New("checkpoints need the git program, which is not on PATH")
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.Clean(home) == work {
		return nil, errors.New("the working folder is the home folder: checkpoints keep a project, not a whole home (start gantry in the project's folder)")
	}
	if work == "/" {
		return nil, errors.New("the working folder is the root of the file system: checkpoints keep a project")
	}
	sum := sha256.Sum256([]byte(work))
	dir := filepath.Join(o.Root, filepath.Base(work)+"-"+hex.EncodeToString(sum[:6]))
	r := &Repo{dir: dir, work: work, maxFile: o.MaxFile, policy: o.Policy}
	if r.maxFile <= 0 {
		r.maxFile = DefaultMaxFile
	}
	for _, n := range append([]string{o.Root}, o.Never...) {
		if n == "" {
			continue
		}
		n, err := filepath.Abs(n)
		if err != nil {
			continue
		}
		if rel, err := filepath.Rel(work, n); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			r.never = append(r.never, filepath.ToSlash(rel))
		}
	}
	for _, n := range o.Secret {
		if rel, err := filepath.Rel(work, n); err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			r.secret = append(r.secret, filepath.ToSlash(rel))
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "HEAD")); err != nil {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, fmt.Errorf("making the checkpoint repository: %w", err)
		}
		if _, err := r.run(context.Background(), nil, []string{"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null"}, nil, "init", "--quiet", "--bare", dir); err != nil {
			return nil, err
		}
		// A work tree of its own (the project's, given by GIT_WORK_TREE at each call).
		if _, err := r.git(context.Background(), nil, "config", "core.bare", "false"); err != nil {
			return nil, err
		}
		_ = os.WriteFile(filepath.Join(dir, "gantry-project"), []byte(work+"\n"), 0o600)
	}
	return r, nil
}

// Dir is the shadow repository's folder.
func (r *Repo) Dir() string { return r.dir }

// env is git's environment: the shadow repository and its index, the project as the
// work tree, and none of the person's configuration (gantry's own GIT_ variables are
// dropped, see gitVar).
func (r *Repo) env() []string {
	return []string{
		"GIT_DIR=" + r.dir, "GIT_WORK_TREE=" + r.work, "GIT_INDEX_FILE=" + filepath.Join(r.dir, "index"),
		"GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null", "GIT_TERMINAL_PROMPT=0",
		"GIT_AUTHOR_NAME=gantry", "GIT_AUTHOR_EMAIL=gantry@localhost", "GIT_COMMITTER_NAME=gantry", "GIT_COMMITTER_EMAIL=gantry@localhost",
		"LC_ALL=C",
	}
}

// gitWidening is what the checkpoints' git needs beyond the policy: see run.
var gitWidening = &contain.Widening{Why: "checkpoints: gantry's own git on its shadow repository", OutsideSandbox: true}

// gitVar tells the variables of gantry's environment that git must not see.
func gitVar(k string) bool { return strings.HasPrefix(k, "GIT_") || k == "LC_ALL" }

// git runs git in the work tree with the shadow repository's environment.
func (r *Repo) git(ctx context.Context, stdin []byte, args ...string) ([]byte, error) {
	return r.run(ctx, stdin, r.env(), gitConfig, args...)
}

// gitConfig is what git is told at each call: no hooks, filters, fsmonitor or gc.
var gitConfig = []string{"-c", "core.autocrlf=false", "-c", "core.safecrlf=false", "-c", "core.hooksPath=/dev/null",
	"-c", "core.fsmonitor=false", "-c", "core.untrackedCache=true", "-c", "gc.auto=0", "-c", "core.quotepath=false",
	"-c", "advice.addEmbeddedRepo=false"}

// run runs git with config, then args, and env under the session's policy, in the work
// tree: its PID
// namespace and its judge (a deny rule on git stops checkpoints too, and says so), but
// outside its sandbox — git here runs nothing of the project's (no hooks, filters,
// fsmonitor or configuration of the person's) and never reads a read-denied path
// (excluded: see Options.Secret), and a sandbox for each of a snapshot's git
// processes cost a yolo turn 300 ms.
func (r *Repo) run(ctx context.Context, stdin []byte, env, config []string, args ...string) ([]byte, error) {
	argv := append(append([]string{"git"}, config...), args...)
	p := r.policy.Process(contain.Spec{Argv: argv, Dir: r.work, Env: env, DropEnv: gitVar, Widen: gitWidening})
	if stdin != nil {
		p.Cmd.Stdin = bytes.NewReader(stdin)
	}
	var stderr bytes.Buffer
	p.Cmd.Stderr = &stderr
	out, err := p.Output(ctx)
	if err != nil {
		return out, fmt.Errorf("git %s: %v: %s", args[0], err, strings.TrimSpace(stderr.String()))
	}
	return out, nil
}

// Checkpoint is one kept state.
type Checkpoint struct {
	Commit string
	Tree   string
	// Skipped are the files left out for their size (relative paths), with the bound.
	Skipped []string
}

// Snapshot keeps the work tree's state now, labelled, under ref (refs/gantry/…). An
// unchanged tree gives the same tree id (and the same commit, when ref already holds it).
func (r *Repo) Snapshot(ctx context.Context, ref, label string) (Checkpoint, error) {
	defer r.lock()()
	skipped, err := r.exclude(ctx)
	if err != nil {
		return Checkpoint{}, err
	}
	if _, err := r.git(ctx, nil, "add", "--all", "--ignore-errors", "--", "."); err != nil {
		return Checkpoint{}, err
	}
	out, err := r.git(ctx, nil, "write-tree")
	if err != nil {
		return Checkpoint{}, err
	}
	tree := strings.TrimSpace(string(out))
	cp := Checkpoint{Tree: tree, Skipped: skipped}
	// The ref's and the last checkpoint's commits and trees, in one git process.
	out, err = r.git(ctx, nil, "for-each-ref", "--format=%(refname) %(objectname) %(tree)", ref, lastRef)
	if err != nil {
		return Checkpoint{}, err
	}
	type kept struct{ commit, tree string }
	refs := map[string]kept{}
	for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		if f := strings.Fields(l); len(f) == 3 {
			refs[f[0]] = kept{f[1], f[2]}
		}
	}
	// The ref holds this tree already: nothing new to keep.
	if k, ok := refs[ref]; ok && k.tree == tree {
		cp.Commit = k.commit
		return cp, nil
	}
	// Nothing changed since the last checkpoint: the ref takes its commit.
	if k, ok := refs[lastRef]; ok && k.tree == tree {
		cp.Commit = k.commit
		if _, err := r.git(ctx, nil, "update-ref", ref, k.commit); err != nil {
			return Checkpoint{}, err
		}
		return cp, nil
	}
	args := []string{"commit-tree", tree, "-m", label}
	if k, ok := refs[lastRef]; ok {
		args = append(args, "-p", k.commit)
	}
	out, err = r.git(ctx, nil, args...)
	if err != nil {
		return Checkpoint{}, err
	}
	cp.Commit = strings.TrimSpace(string(out))
	// Both refs in one transaction.
	updates := "update " + ref + " " + cp.Commit + "\nupdate " + lastRef + " " + cp.Commit + "\n"
	if _, err := r.git(ctx, []byte(updates), "update-ref", "--stdin"); err != nil {
		return Checkpoint{}, err
	}
	return cp, nil
}

// lastRef is the newest checkpoint of the project, the parent of the next one.
const lastRef = "refs/gantry/last"

// exclude writes the shadow repository's exclude file: the project's own
// .git/info/exclude, and the files over the size bound, which it returns. A tracked
// file that grew past the bound leaves the index.
func (r *Repo) exclude(ctx context.Context) ([]string, error) {
	var b strings.Builder
	b.WriteString("# written by gantry at each checkpoint\n")
	if own, err := os.ReadFile(filepath.Join(r.work, ".git", "info", "exclude")); err == nil {
		b.Write(own)
		b.WriteString("\n")
	}
	for _, n := range r.never {
		b.WriteString("/" + escapeGlob(n) + "/\n")
	}
	for _, n := range r.left() {
		b.WriteString("/" + escapeGlob(n) + "\n")
	}
	// Candidates: what is new or changed since the last snapshot.
	out, err := r.git(ctx, nil, "ls-files", "-z", "--others", "--modified", "--exclude-standard")
	if err != nil && !strings.Contains(err.Error(), "does not have any commits") {
		return nil, err
	}
	var skipped []string
	if n := bytes.Count(out, []byte{0}); n > MaxFiles {
		return nil, fmt.Errorf("the folder has more than %d new or changed files to keep (%d): checkpoints keep a project's sources, not a folder this large", MaxFiles, n)
	}
	for _, p := range strings.Split(string(out), "\x00") {
		if p == "" {
			continue
		}
		fi, err := os.Lstat(filepath.Join(r.work, p))
		if err != nil || !fi.Mode().IsRegular() || fi.Size() <= r.maxFile {
			continue
		}
		skipped = append(skipped, p)
	}
	// Files left out before stay out while they are still too large.
	if prev, err := os.ReadFile(filepath.Join(r.dir, "gantry-skipped")); err == nil {
		for _, p := range strings.Split(string(prev), "\n") {
			if p == "" || slices.Contains(skipped, p) {
				continue
			}
			if fi, err := os.Lstat(filepath.Join(r.work, p)); err == nil && fi.Size() > r.maxFile {
				skipped = append(skipped, p)
			}
		}
	}
	sort.Strings(skipped)
	for _, p := range skipped {
		b.WriteString("/" + escapeGlob(p) + "\n")
	}
	if err := os.MkdirAll(filepath.Join(r.dir, "info"), 0o700); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.dir, "info", "exclude"), []byte(b.String()), 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(r.dir, "gantry-skipped"), []byte(strings.Join(skipped, "\n")), 0o600); err != nil {
		return nil, err
	}
	if out := append(slices.Clone(skipped), r.left()...); len(out) > 0 {
		if _, err := r.git(ctx, []byte(strings.Join(out, "\x00")), "rm", "--cached", "-r", "--quiet", "--ignore-unmatch", "--pathspec-from-file=-", "--pathspec-file-nul"); err != nil {
			return nil, err
		}
	}
	return skipped, nil
}

func escapeGlob(p string) string {
	var b strings.Builder
	for _, c := range p {
		if strings.ContainsRune(`*?[]\!# `, c) {
			b.WriteByte('\\')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// Change is one file's difference between two states.
type Change struct {
	Path           string
	Status         string // A added, M modified, D deleted (from the older to the newer)
	Added, Removed int    // lines; -1 for a binary file
}

// Diff lists what changed from the state from to the state to (commits or trees).
func (r *Repo) Diff(ctx context.Context, from, to string) ([]Change, error) {
	defer r.lock()()
	out, err := r.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--numstat", from, to)
	if err != nil {
		return nil, err
	}
	status, err := r.git(ctx, nil, "diff-tree", "-r", "-z", "--no-renames", "--name-status", from, to)
	if err != nil {
		return nil, err
	}
	st := map[string]string{}
	parts := strings.Split(string(status), "\x00")
	for i := 0; i+1 < len(parts); i += 2 {
		st[parts[i+1]] = parts[i]
	}
	var changes []Change
	for _, rec := range strings.Split(string(out), "\x00") {
		f := strings.SplitN(rec, "\t", 3)
		if len(f) != 3 {
			continue
		}
		c := Change{Path: f[2], Status: st[f[2]], Added: -1, Removed: -1}
		if f[0] != "-" {
			c.Added, _ = strconv.Atoi(f[0])
			c.Removed, _ = strconv.Atoi(f[1])
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// Restore brings the work tree back to the checkpoint's state: changed files get their
// content and mode back, deleted ones return, files created since go (and the folders
// they leave empty). Files left out for their size are not touched. It first keeps the
// current state under before (so that a restore can be undone) and returns what it
// changed, as a diff from the checkpoint to that state.
func (r *Repo) Restore(ctx context.Context, to Checkpoint, before string) ([]Change, error) {
	cur, err := r.Snapshot(ctx, before, "before a restore")
	if err != nil {
		return nil, err
	}
	changes, err := r.Diff(ctx, to.Commit, cur.Commit)
	if err != nil {
		return nil, err
	}
	if len(changes) == 0 {
		return nil, nil
	}
	defer r.lock()()
	spec := []string{"restore", "--source=" + to.Commit, "--staged", "--worktree", "--", ":/"}
	for _, n := range append(slices.Clone(r.never), r.left()...) {
		spec = append(spec, ":(top,exclude)"+n)
	}
	if _, err := r.git(ctx, nil, spec...); err != nil {
		return nil, err
	}
	// Folders that held only files created since: gone with them.
	for _, c := range changes {
		if c.Status == "A" { // added since the checkpoint: restore removed it
			removeEmptyParents(r.work, filepath.Dir(filepath.Join(r.work, c.Path)))
		}
	}
	return changes, nil
}

// removeEmptyParents removes dir and its parents while they are empty, up to root.
func removeEmptyParents(root, dir string) {
	for dir != root && strings.HasPrefix(dir, root+string(filepath.Separator)) {
		entries, err := os.ReadDir(dir)
		if err != nil || len(entries) > 0 {
			return
		}
		if os.Remove(dir) != nil {
			return
		}
		dir = filepath.Dir(dir)
	}
}

// Resolve reads a ref's checkpoint.
func (r *Repo) Resolve(ctx context.Context, ref string) (Checkpoint, error) {
	defer r.lock()()
	out, err := r.git(ctx, nil, "rev-parse", "--verify", "--quiet", ref+"^{commit}")
	if err != nil {
		return Checkpoint{}, fmt.Errorf("no checkpoint %s", ref)
	}
	c := strings.TrimSpace(string(out))
	t, err := r.git(ctx, nil, "rev-parse", c+"^{tree}")
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Commit: c, Tree: strings.TrimSpace(string(t))}, nil
}

// Size is the shadow repository's size on disk, in bytes.
func (r *Repo) Size() int64 {
	var n int64
	_ = filepath.WalkDir(r.dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return n
}

// Files counts the files a checkpoint keeps.
func (r *Repo) Files(ctx context.Context, cp Checkpoint) int {
	defer r.lock()()
	out, err := r.git(ctx, nil, "ls-tree", "-r", "-z", "--name-only", cp.Tree)
	if err != nil {
		return 0
	}
	return bytes.Count(out, []byte{0})
}

// Patch is the unified diff from the state from to the state to.
func (r *Repo) Patch(ctx context.Context, from, to string) (string, error) {
	defer r.lock()()
	out, err := r.git(ctx, nil, "diff-tree", "-p", "-r", "--no-renames", "--no-color", from, to)
	return string(out), err
}
