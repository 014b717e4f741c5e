package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// FileGuard returns the per-file check of a call of the tool name (see tool.FileGuard):
// the engine's deny rules of the file-reading or file-writing family, the deny rules
// that name the tool itself when its calls read or write files, and the session's
// "deny always" answers about a file, matched on the canonical form of each path as
// checkFiles matches a call's paths. Only refusals come from it: what the gate asks
// or allows was decided on the call as a whole. A guard serves one call: it keeps the
// folders it resolved, so that a search of many files resolves each folder once.
func (e *Engine) FileGuard(name string) tool.FileGuard {
	return &fileGuard{e: e, tool: name, dirs: map[string]string{}}
}

type fileGuard struct {
	e    *Engine
	tool string
	mu   sync.Mutex
	dirs map[string]string // folder as given → its symbolic links resolved
}

func (g *fileGuard) Read(abs string) error  { return g.check(tool.FilesRead, abs) }
func (g *fileGuard) Write(abs string) error { return g.check(tool.FilesWrite, abs) }

// guardRules is what the guard needs of the engine, taken under its lock so that the
// paths are resolved without it (a search's workers ask at once).
type guardRules struct {
	deny      []Rule
	remember  []remembered
	root      string
	protected bool   // writes of gantry's own settings are refused (yolo in the sandbox)
	outputs   string // the session's saved outputs, which a read may always read
}

// rules returns the engine's rules that speak of the files a call of name reads
// (kind FilesRead) or writes; ok is false when none does.
func (e *Engine) guardRules(name string, kind tool.Files) (r guardRules, ok bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	for _, x := range e.deny {
		if e.guards(x, name, kind) {
			r.deny = append(r.deny, x)
		}
	}
	for _, m := range e.remember {
		if !m.allow && m.files == kind {
			r.remember = append(r.remember, m)
		}
	}
	r.protected = kind == tool.FilesWrite && e.mode == ModeYolo && e.sandboxed != nil && e.sandboxed(e.mode)
	r.root = e.root
	if kind == tool.FilesRead {
		r.outputs = e.outputs
	}
	return r, len(r.deny) > 0 || len(r.remember) > 0 || r.protected
}

// check checks one file for a call that reads (kind FilesRead) or writes it.
func (g *fileGuard) check(kind tool.Files, abs string) error {
	rs, ok := g.e.guardRules(g.tool, kind)
	if !ok {
		return nil // no rule can deny it: nothing to resolve
	}
	cp := canonIn(rs.root, g.resolve(abs))
	if rs.outputs != "" && strings.HasPrefix(cp.abs, resolvePath(rs.outputs)+"/") {
		return nil // the session's own saved output (SetOwnOutputs)
	}
	denied := func(rule string) error {
		return &tool.FileDenied{Path: cp.rel, Rule: rule, Write: kind == tool.FilesWrite}
	}
	for _, r := range rs.deny {
		if r.matchesCanon(cp) {
			return denied(r.describe())
		}
	}
	for _, m := range rs.remember {
		for _, p := range m.paths {
			if resolvePath(p) == cp.abs {
				return denied(fmt.Sprintf("your answer \"deny always\" to %s", m.tool))
			}
		}
	}
	if rs.protected {
		g.e.mu.Lock()
		why := g.e.protected(cp)
		allowed := g.e.allowsProtected(Call{Tool: g.tool, Files: kind}, cp)
		g.e.mu.Unlock()
		if strings.HasPrefix(why, "gantry") && !allowed {
			return denied(fmt.Sprintf("of yolo's sandbox, which keeps %s read-only (%s:%s would allow it)", why, g.tool, regexp.QuoteMeta(cp.rel)))
		}
	}
	return nil
}

// resolve is abs with its symbolic links resolved as resolvePath does; the folder of
// a path without ".." is resolved once per guard.
func (g *fileGuard) resolve(abs string) string {
	if !filepath.IsAbs(abs) || hasDotDot(abs) {
		return resolvePath(abs) // ".." applies to what a link points at, as the kernel does it
	}
	abs = filepath.Clean(abs)
	dir, base := filepath.Split(abs)
	if base == "" || base == ".." {
		return resolvePath(abs)
	}
	g.mu.Lock()
	rdir, ok := g.dirs[dir]
	g.mu.Unlock()
	if !ok {
		rdir = resolvePath(dir)
		g.mu.Lock()
		g.dirs[dir] = rdir
		g.mu.Unlock()
	}
	p := filepath.Join(rdir, base)
	if _, err := os.Readlink(p); err == nil {
		return resolvePath(p) // the file is a link: followed to its end
	}
	return p
}

// canonIn is the canonical form of the resolved absolute path abs in the project root
// (see Engine.canon).
func canonIn(root, abs string) canonical {
	c := canonical{abs: abs, rel: abs}
	if root == "" {
		return c
	}
	if r, err := filepath.Rel(root, abs); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		c.rel, c.inside = filepath.ToSlash(r), true
	}
	return c
}

// guards reports whether deny rule r speaks of the files a call of name reads (kind
// FilesRead) or writes: a rule of a tool of that family, or a rule naming the calling
// tool (or a wildcard covering it) when the calling tool is of that family.
func (e *Engine) guards(r Rule, name string, kind tool.Files) bool {
	if !strings.HasSuffix(r.Tool, "*") {
		if f, ok := e.families[r.Tool]; ok && f == kind {
			return true
		}
	}
	return r.MatchesTool(name) && e.families[name] == kind
}
