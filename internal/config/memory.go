package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
)

// The memory file names. In each folder, AGENTS.override.md replaces AGENTS.md (as in
// Codex); CLAUDE.md, .claude/CLAUDE.md and CLAUDE.local.md (as in Claude Code) follow.
const (
	agentsName   = "AGENTS.md"
	overrideName = "AGENTS.override.md"
)

// MemoryNames are the memory files looked for in a project folder (the folders from
// the project root down to the working directory, and those below it as the model
// touches them), in the order they are given; AGENTS.override.md, when it exists and
// is not empty, is read instead of AGENTS.md.
var MemoryNames = []string{agentsName, "CLAUDE.md", filepath.Join(".claude", "CLAUDE.md"), "CLAUDE.local.md"}

// userMemoryNames are the memory files looked for in UserDir, in order (with the same
// override of AGENTS.md).
var userMemoryNames = []string{agentsName, "CLAUDE.md"}

// CodexDir is Codex's home folder: $CODEX_HOME, else ~/.codex.
func CodexDir() string {
	if d := os.Getenv("CODEX_HOME"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".codex")
}

// MemoryPrecedence says how memory files rank against each other and against the
// person's instructions; the system prompt's memory section states it once.
const MemoryPrecedence = "They are given from the broadest to the closest: the user's own files, then each folder's " +
	"from the project root down to the working directory, and the files of folders below it as you first touch a file " +
	"there (added to that tool result). When they disagree, the file closest to the file you are working on wins " +
	"(a folder's files over its parents', and in one folder the later file over the earlier), and the user's " +
	"instructions in the conversation win over every memory file."

// MaxMemory bounds the memory text of a session, in bytes: the files read at the start
// and those added as the model touches folders below the working directory, together.
const MaxMemory = 100 << 10

// memoryLabel starts the line that names each file of the memory text.
const memoryLabel = "Contents of "

// maxImportDepth is how deep @imports are followed: a memory file's imports are at
// depth 1, their imports at depth 2, …
const maxImportDepth = 5

// MemoryFiles is the memory given to the model: the text of every memory file and of
// what they import, each labelled with its path.
type MemoryFiles struct {
	Text string
	// Files are the files read, in the order of Text.
	Files []string
	// Truncated says that Text was cut at MaxMemory.
	Truncated bool
	// Scoped are the rule files with paths, not in Text: each waits for the model to
	// touch a file matching its globs (see Nested.Touch).
	Scoped []Rule
}

// Memory gathers the memory files for a session in cwd: those of UserDir, then those of
// each folder from the project root down to cwd (see MemoryNames). A file's @path
// imports are added after it, recursively (see imports); each file is read once, and
// an empty file is skipped.
func Memory(cwd string) (MemoryFiles, error) {
	cwd = absClean(cwd)
	a := newAssembler(MaxMemory)
	if err := a.folder(absClean(UserDir()), userMemoryNames); err != nil {
		return MemoryFiles{}, err
	}
	// The other agents' user memory, as they read it: Claude Code's CLAUDE.md in its
	// user folder and its user rules (paths relative to the project root), then
	// Codex's AGENTS.md (or AGENTS.override.md) in its home.
	root := ProjectRoot(cwd)
	var scoped []Rule
	if d := ClaudeDir(); d != "" {
		if err := a.folder(absClean(d), []string{"CLAUDE.md"}); err != nil {
			return MemoryFiles{}, err
		}
		s, err := a.rules(filepath.Join(absClean(d), "rules"), root)
		if err != nil {
			return MemoryFiles{}, err
		}
		scoped = append(scoped, s...)
	}
	if d := CodexDir(); d != "" {
		if err := a.folder(absClean(d), []string{agentsName}); err != nil {
			return MemoryFiles{}, err
		}
	}
	// In each folder, its .claude/rules follow its .claude/CLAUDE.md (as Claude Code
	// gives them the same rank) and come before CLAUDE.local.md.
	local := len(MemoryNames) - 1
	for _, dir := range lineage(root, cwd) {
		if err := a.folder(dir, MemoryNames[:local]); err != nil {
			return MemoryFiles{}, err
		}
		s, err := a.rules(filepath.Join(dir, rulesDir), dir)
		if err != nil {
			return MemoryFiles{}, err
		}
		scoped = append(scoped, s...)
		if err := a.folder(dir, MemoryNames[local:]); err != nil {
			return MemoryFiles{}, err
		}
	}
	m := a.result()
	m.Scoped = scoped
	return m, nil
}

// Nested gives the memory files of the folders below a session's working directory,
// the first time the model touches a file in them: each file once a session, within
// what MaxMemory leaves after the memory read at the start. It is safe for concurrent
// use (read calls run in parallel).
type Nested struct {
	cwd string
	mu  sync.Mutex
	a   *assembler
	// pending are the scoped rules not given yet; rulesRead the folders below the
	// working directory whose .claude/rules were read.
	pending   []Rule
	rulesRead map[string]bool
}

// NewNested returns the nested memory of a session in cwd whose memory at the start
// was start: its files are not given again.
func NewNested(cwd string, start MemoryFiles) *Nested {
	a := newAssembler(MaxMemory - len(start.Text))
	a.truncated = start.Truncated
	for _, f := range start.Files {
		a.seen[fileKey(f)] = true
	}
	return &Nested{cwd: absClean(cwd), a: a, pending: slices.Clone(start.Scoped)}
}

// Touch returns the memory files (and their imports) of every folder from below the
// working directory down to each of paths (a file's folder, or the folder itself) that
// were not given yet, as text labelled like Memory's, and the files it holds. Paths
// outside the working directory have none. A file that cannot be read is left out.
func (n *Nested) Touch(paths []string) (text string, files []string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	mark, first := n.a.b.Len(), len(n.a.files)
	for _, p := range paths {
		if !filepath.IsAbs(p) {
			continue
		}
		p = filepath.Clean(p)
		n.touchRules(p)
		dir := p
		if fi, err := os.Stat(p); err != nil || !fi.IsDir() {
			dir = filepath.Dir(p)
		}
		if dir == n.cwd || !within(n.cwd, dir) {
			continue
		}
		for _, d := range lineage(n.cwd, dir)[1:] {
			n.folder(d)
		}
		n.touchRules(p) // the rules with paths of the folders just read
	}
	return strings.TrimRight(n.a.b.String()[mark:], "\n"), append([]string(nil), n.a.files[first:]...)
}

// folder gives the memory files of d, a folder below the working directory, as
// Memory gives a folder's: its .claude/rules after its .claude/CLAUDE.md and before
// CLAUDE.local.md. Its rules with paths join the pending ones. A folder's rules are
// read once; a file that cannot be read is not memory.
func (n *Nested) folder(d string) {
	local := len(MemoryNames) - 1
	_ = n.a.folder(d, MemoryNames[:local])
	if !n.rulesRead[d] {
		if n.rulesRead == nil {
			n.rulesRead = map[string]bool{}
		}
		n.rulesRead[d] = true
		scoped, _ := n.a.rules(filepath.Join(d, rulesDir), d)
		n.pending = append(n.pending, scoped...)
	}
	_ = n.a.folder(d, MemoryNames[local:])
}

// touchRules gives the pending rules that match the file p, in their order.
func (n *Nested) touchRules(p string) {
	kept := n.pending[:0]
	for _, r := range n.pending {
		if !r.Matches(p) {
			kept = append(kept, r)
			continue
		}
		data, err := os.ReadFile(r.Path)
		if err != nil {
			continue // a rule that cannot be read is not memory
		}
		body, _ := parseRule(string(data))
		_, _ = n.a.addText(r.Path, body, "", 0) // its imports too; one that cannot be read is left out
	}
	clear(n.pending[len(kept):])
	n.pending = kept
}

// Given returns the files Touch gave so far (and those Restore marked), in order.
func (n *Nested) Given() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.a.files)
}

// Truncated says the memory was cut at MaxMemory.
func (n *Nested) Truncated() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.a.truncated
}

// Pending returns the scoped rules not given yet.
func (n *Nested) Pending() []Rule {
	n.mu.Lock()
	defer n.mu.Unlock()
	return slices.Clone(n.pending)
}

// Restore marks as given the nested memory files that text (a resumed conversation's
// message) was given: those whose labels it holds as Touch writes them, in folders
// below the working directory. They are read again, with their imports, for Text, and
// Touch does not give them twice.
func (n *Nested) Restore(text string) {
	if !strings.Contains(text, memoryLabel) {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for line := range strings.Lines(text) {
		path, ok := strings.CutPrefix(strings.TrimRight(line, "\r\n"), memoryLabel)
		if !ok || !strings.HasSuffix(path, ":") || strings.Contains(path, " (imported by ") {
			continue // not a label, or an import's (its importer brings it back)
		}
		path = strings.TrimSuffix(path, ":")
		if n.restoreRule(path) {
			continue
		}
		if n.restoreNestedRule(path) {
			continue
		}
		dir, name := filepath.Split(path)
		dir = filepath.Clean(dir)
		if filepath.Base(dir) == ".claude" {
			dir, name = filepath.Dir(dir), filepath.Join(".claude", name)
		}
		if !filepath.IsAbs(path) || dir == n.cwd || !within(n.cwd, dir) || (name != overrideName && !slices.Contains(MemoryNames, name)) {
			continue
		}
		_, _ = n.a.add(path, "", 0) // one that cannot be read is not memory any more
	}
}

// restoreNestedRule gives again the rule file at path when it is one of a folder below
// the working directory (in its .claude/rules), reporting whether it is.
func (n *Nested) restoreNestedRule(path string) bool {
	if !filepath.IsAbs(path) || !strings.HasSuffix(path, ".md") {
		return false
	}
	rel, err := filepath.Rel(n.cwd, path)
	if err != nil || !within(n.cwd, path) {
		return false
	}
	parts := strings.Split(rel, string(filepath.Separator))
	i := slices.Index(parts, ".claude")
	if i < 1 || i+2 >= len(parts) || parts[i+1] != "rules" {
		return false // not in the .claude/rules of a folder below the working directory
	}
	if data, err := os.ReadFile(path); err == nil {
		body, _ := parseRule(string(data))
		_, _ = n.a.addText(path, body, "", 0) // one that cannot be read is not memory any more
	}
	return true
}

// restoreRule gives again the pending rule at path, reporting whether there was one.
func (n *Nested) restoreRule(path string) bool {
	for i, r := range n.pending {
		if r.Path != path {
			continue
		}
		n.pending = slices.Delete(n.pending, i, i+1)
		if data, err := os.ReadFile(r.Path); err == nil {
			body, _ := parseRule(string(data))
			_, _ = n.a.addText(r.Path, body, "", 0) // one that cannot be read is not memory any more
		}
		return true
	}
	return false
}

// Text returns every nested memory file given so far, in the order given (what a
// compaction re-injects beside the memory of the start).
func (n *Nested) Text() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return strings.TrimRight(n.a.b.String(), "\n")
}

// within reports whether dir is root or inside it.
func within(root, dir string) bool {
	rel, err := filepath.Rel(root, dir)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// lineage returns root, then each folder below it down to dir; just dir when dir is
// not inside root.
func lineage(root, dir string) []string {
	if !within(root, dir) {
		return []string{dir}
	}
	rel, _ := filepath.Rel(root, dir)
	out := []string{root}
	if rel == "." {
		return out
	}
	cur := root
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		out = append(out, cur)
	}
	return out
}

type assembler struct {
	b         strings.Builder
	files     []string
	seen      map[string]bool
	limit     int // bytes b may hold
	truncated bool
}

func newAssembler(limit int) *assembler {
	return &assembler{seen: map[string]bool{}, limit: max(limit, 0)}
}

// folder adds the memory files names of dir, in order; AGENTS.override.md, when it
// holds something, stands for AGENTS.md. A file that cannot be read is an error, after
// the others are added.
func (a *assembler) folder(dir string, names []string) error {
	var errs []error
	for _, name := range names {
		if name == agentsName {
			ok, err := a.add(filepath.Join(dir, overrideName), "", 0)
			errs = append(errs, err)
			if ok || err != nil {
				continue
			}
		}
		_, err := a.add(filepath.Join(dir, name), "", 0)
		errs = append(errs, err)
	}
	return errors.Join(errs...)
}

// fileKey is what tells two names of one file apart from two files: the path with its
// symbolic links resolved, when they can be.
func fileKey(path string) string {
	path = filepath.Clean(path)
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	return path
}

// add appends the file at path (if it exists, holds something and was not added
// already) and then its imports. importedBy names the file that imports it, "" for a
// memory file. ok says the file is memory: it is there now, or was added before (or
// there is no room left to know).
func (a *assembler) add(path, importedBy string, depth int) (ok bool, err error) {
	path = filepath.Clean(path)
	key := fileKey(path) // the same file through two names is still read once
	if a.seen[key] || a.truncated {
		return true, nil // already there (or an import cycle), or no room left
	}
	data, err := os.ReadFile(path)
	switch {
	case errors.Is(err, fs.ErrNotExist), isDirErr(path, err):
		return false, nil
	case err != nil:
		return false, fmt.Errorf("memory file: %w", err)
	}
	return a.addText(path, string(data), importedBy, depth)
}

// addText appends the file at path whose text is data (unless it is empty or was
// added already), then its imports; see add.
func (a *assembler) addText(path, data, importedBy string, depth int) (ok bool, err error) {
	path = filepath.Clean(path)
	key := fileKey(path)
	if a.seen[key] || a.truncated {
		return true, nil
	}
	text := strings.TrimRight(data, "\n")
	if strings.TrimSpace(text) == "" {
		return false, nil // an empty file says nothing (and does not replace AGENTS.md)
	}
	a.seen[key] = true
	a.files = append(a.files, path)
	if importedBy == "" {
		a.write(fmt.Sprintf(memoryLabel+"%s:\n\n%s\n\n", path, text))
	} else {
		a.write(fmt.Sprintf(memoryLabel+"%s (imported by %s):\n\n%s\n\n", path, importedBy, text))
	}
	if depth >= maxImportDepth {
		return true, nil
	}
	for _, imp := range imports(text, filepath.Dir(path)) {
		if _, err := a.add(imp, path, depth+1); err != nil {
			return true, err
		}
	}
	return true, nil
}

func isDirErr(path string, err error) bool {
	if err == nil {
		return false
	}
	fi, serr := os.Stat(path)
	return serr == nil && fi.IsDir()
}

// write appends s, or as much of it as the limit leaves room for.
func (a *assembler) write(s string) {
	if a.truncated {
		return
	}
	if room := a.limit - a.b.Len(); len(s) > room {
		cut := strings.ToValidUTF8(s[:max(room, 0)], "")
		a.b.WriteString(cut)
		a.b.WriteString(fmt.Sprintf("\n\n[memory cut at %d KB: the rest of the memory files is left out]\n", MaxMemory>>10))
		a.truncated = true
		return
	}
	a.b.WriteString(s)
}

func (a *assembler) result() MemoryFiles {
	return MemoryFiles{Text: strings.TrimRight(a.b.String(), "\n"), Files: a.files, Truncated: a.truncated}
}
