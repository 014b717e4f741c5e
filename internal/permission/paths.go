package permission

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Path rules are matched on a path's canonical form: relative to the project root,
// cleaned, with symlinks resolved (./secret/x, /abs/project/secret/x and link/x with
// link → secret are all secret/x); a path outside the project is its absolute path. A
// path rule of one file-writing tool covers every tool that writes files, one of a
// file-reading tool every tool that reads them; a call of several paths is denied when
// any is denied and allowed without asking only when every one is allowed.

// canonical is a path as path rules see it.
type canonical struct {
	abs    string // absolute, cleaned, symlinks resolved
	rel    string // relative to the project root when inside it, else abs
	inside bool
}

// SetFileTools says which tools read and which write the files of their paths, so
// that a path rule of one covers all of its family.
func (e *Engine) SetFileTools(families map[string]tool.Files) {
	e.mu.Lock()
	e.families = families
	e.mu.Unlock()
}

// SetProtected adds folders outside the project whose files are protected like
// gantry's own settings (the user config folder).
func (e *Engine) SetProtected(dirs ...string) {
	e.mu.Lock()
	for _, d := range dirs {
		if d != "" {
			e.protectedDirs = append(e.protectedDirs, resolvePath(d))
		}
	}
	e.mu.Unlock()
}

// SetRunsCode adds files outside the project that make a later session or shell run
// code (shell start-up files, Claude Code's user settings): writing one is asked in
// every mode, yolo included, like the project's .mcp.json.
func (e *Engine) SetRunsCode(files ...string) {
	e.mu.Lock()
	for _, f := range files {
		if f != "" {
			e.codeFiles = append(e.codeFiles, resolvePath(f))
		}
	}
	e.mu.Unlock()
}

// SetSandboxed tells the engine how to know whether commands run in the sandbox. The
// file tools ask for the files that run code later in every mode, sandbox or not
// (runsCode), so no verdict depends on it now; the sandbox still says it.
func (e *Engine) SetSandboxed(on func(Mode) bool) {
	e.mu.Lock()
	e.sandboxed = on
	e.mu.Unlock()
}

// DeniedWritePaths are the absolute paths that the deny rules of file-writing tools
// name plainly (the literal beginning of their pattern up to its last /, a file named
// whole), for the sandbox to keep read-only.
func (e *Engine) DeniedWritePaths() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []string
	for _, r := range e.deny {
		if r.Pattern == nil || e.families[r.Tool] != tool.FilesWrite && !strings.HasSuffix(r.Tool, "*") {
			continue
		}
		p := r.prefix
		if p != r.pat && regexp.QuoteMeta(p) != r.pat { // not a file named whole
			i := strings.LastIndex(p, "/")
			if i <= 0 {
				continue
			}
			p = p[:i]
		}
		if !filepath.IsAbs(p) {
			if e.root == "" {
				continue
			}
			p = filepath.Join(e.root, p)
		}
		out = append(out, filepath.Clean(p))
	}
	return out
}

// canon is the canonical form of an absolute path p.
func (e *Engine) canon(p string) canonical {
	abs := resolvePath(p)
	c := canonical{abs: abs, rel: abs}
	if e.root == "" {
		return c
	}
	if r, err := filepath.Rel(e.root, abs); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
		c.rel, c.inside = filepath.ToSlash(r), true
	}
	return c
}

// maxLinks bounds the symbolic links followed in one path, as Linux does (40).
const maxLinks = 40

// resolvePath resolves the symbolic links of p as far as p exists, and cleans the
// rest; ".." applies to what a link points at, as the kernel does it.
func resolvePath(p string) string {
	if !filepath.IsAbs(p) {
		if a, err := filepath.Abs(p); err == nil {
			p = a
		}
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	resolved := "/"
	links := 0
	for len(parts) > 0 {
		part := parts[0]
		parts = parts[1:]
		switch part {
		case "", ".":
			continue
		case "..":
			resolved = filepath.Dir(resolved)
			continue
		}
		next := filepath.Join(resolved, part)
		target, err := os.Readlink(next)
		if err != nil || links >= maxLinks {
			resolved = next // not a link, or not there: taken as written
			continue
		}
		links++
		if filepath.IsAbs(target) {
			resolved = "/"
		}
		parts = append(strings.Split(filepath.ToSlash(target), "/"), parts...)
	}
	return filepath.Clean(resolved)
}

// covers reports whether rule r speaks of calls of c: it names c's tool, or a tool of
// the same family (a path rule of edit_file covers write_file, apply_patch, …).
func (e *Engine) covers(r Rule, c Call) bool {
	if r.MatchesTool(c.Tool) {
		return true
	}
	if c.Files == tool.FilesNone || strings.HasSuffix(r.Tool, "*") {
		return false
	}
	f, ok := e.families[r.Tool]
	return ok && f == c.Files
}

// matchesCanon reports whether r's pattern matches the canonical path cp: an absolute
// pattern its absolute form, another its form relative to the project.
func (r Rule) matchesCanon(cp canonical) bool {
	if r.Pattern == nil {
		return true
	}
	if r.absolute() {
		return r.Pattern.MatchString(cp.abs)
	}
	return r.Pattern.MatchString(cp.rel)
}

// checkFiles decides a call of a tool that reads or writes the files of its paths.
func (e *Engine) checkFiles(c Call) Verdict {
	cps := make([]canonical, len(c.Paths))
	for i, p := range c.Paths {
		cps[i] = e.canon(p)
	}
	typed := strings.TrimSpace(c.Principal)
	for _, r := range e.deny {
		if !e.covers(r, c) {
			continue
		}
		for _, cp := range cps {
			if r.matchesCanon(cp) {
				return Verdict{Decision: Deny, Reason: fmt.Sprintf("a deny rule (%s) forbids %s", r.describe(), cp.rel)}
			}
		}
		if r.MatchesTool(c.Tool) && r.denies(c, typed) {
			return Verdict{Decision: Deny, Reason: fmt.Sprintf("a deny rule (%s) forbids it", r.describe())}
		}
	}
	if e.modeOf(c) == ModePlan && c.planLevel() != tool.LevelRead {
		return e.byMode(c)
	}
	if v, ok := e.remembered(c); ok {
		return v
	}
	if c.Files == tool.FilesWrite {
		for _, cp := range cps {
			why := e.protected(cp)
			if why == "" || e.allowsProtected(c, cp) {
				continue
			}
			rule := c.Tool + ":" + regexp.QuoteMeta(cp.rel)
			if runs := e.runsCode(cp); runs != "" {
				return Verdict{Decision: Ask, EveryMode: true, AllowRule: rule,
					Reason: fmt.Sprintf("%s is protected (%s, which runs code later), so writing it is asked in every mode, yolo included", cp.rel, runs)}
			}
			if e.modeOf(c) == ModeYolo {
				break // yolo writes them (deny rules aside)
			}
			return Verdict{Decision: Ask, Reason: fmt.Sprintf("%s is protected (%s), so writing it is asked in every mode but yolo", cp.rel, why), AllowRule: rule}
		}
	}
	if len(cps) > 0 {
		for _, r := range e.allow {
			if !e.covers(r, c) {
				continue
			}
			all := true
			for _, cp := range cps {
				all = all && r.matchesCanon(cp)
			}
			if all {
				return Verdict{Decision: Allow, Reason: fmt.Sprintf("an allow rule (%s) permits it", r.describe())}
			}
		}
	}
	return e.byMode(c)
}

// OtherMCPFiles are the other tools' project files, relative to the project root,
// whose MCP servers gantry starts in a trusted folder (Codex's, opencode's, Crush's:
// config.TrustFiles holds them too): like .mcp.json, writing one is asked in every mode.
var OtherMCPFiles = []string{".codex/config.toml", "opencode.json", "opencode.jsonc", ".opencode/opencode.json", ".opencode/opencode.jsonc", "crush.json", ".crush.json"}

// runsCode says what cp is when it is a file that makes a later session run code —
// the project's .mcp.json, Claude Code's project settings, .gantry/, git's hooks and
// config, gantry's user folder, the files of SetRunsCode — or "".
func (e *Engine) runsCode(cp canonical) string {
	if root := e.codeRoot(cp); root != "" {
		return e.protected(cp)
	}
	return ""
}

// codeRoot is the file or folder that an allow rule must name for cp, a file that runs
// code later, to be written without a question; "" when cp is no such file.
func (e *Engine) codeRoot(cp canonical) string {
	for _, d := range e.protectedDirs {
		if cp.abs == d || strings.HasPrefix(cp.abs, d+"/") {
			return d
		}
	}
	for _, f := range e.codeFiles {
		if cp.abs == f {
			return f
		}
	}
	if !cp.inside {
		return ""
	}
	segs := strings.Split(cp.rel, "/")
	for i, s := range segs {
		switch {
		case s == ".gantry":
			return strings.Join(segs[:i+1], "/")
		case s == ".git" && i == len(segs)-1: // a .git file may point git at other hooks
			return cp.rel
		case s == ".git" && (segs[i+1] == "hooks" || segs[i+1] == "config" && i+2 == len(segs)):
			return strings.Join(segs[:i+2], "/")
		}
	}
	switch {
	case cp.rel == ".mcp.json" || slices.Contains(OtherMCPFiles, cp.rel):
		return cp.rel
	case len(segs) == 2 && segs[0] == ".claude" && strings.HasPrefix(segs[1], "settings") && strings.HasSuffix(segs[1], ".json"):
		return cp.rel
	}
	return ""
}

// protected says why writing cp is protected, or "".
func (e *Engine) protected(cp canonical) string {
	for _, f := range e.codeFiles {
		if cp.abs == f {
			return "a shell's or Claude Code's start-up file"
		}
	}
	for _, d := range e.protectedDirs {
		if cp.abs == d || strings.HasPrefix(cp.abs, d+"/") {
			return "gantry's user settings"
		}
	}
	if !cp.inside {
		return "outside the project"
	}
	segs := strings.Split(cp.rel, "/")
	for _, s := range segs[:len(segs)-1] {
		switch s {
		case ".gantry":
			return "gantry's own settings"
		case ".git":
			return "git's internals"
		}
	}
	switch {
	case segs[len(segs)-1] == ".git" || segs[len(segs)-1] == ".gantry":
		return "git's internals or gantry's settings"
	case cp.rel == ".mcp.json" || slices.Contains(OtherMCPFiles, cp.rel):
		return "the project's MCP servers"
	case len(segs) == 2 && segs[0] == ".claude" && strings.HasPrefix(segs[1], "settings") && strings.HasSuffix(segs[1], ".json"):
		return "Claude Code's settings"
	}
	return ""
}

// allowsProtected: an allow rule names the protected path plainly — its pattern's
// literal beginning reaches into the protected folder or file — not just a pattern
// that happens to match it (write_file:.*, the project's grant).
func (e *Engine) allowsProtected(c Call, cp canonical) bool {
	code := e.codeRoot(cp)
	for _, r := range e.allow {
		if r.Pattern == nil || !e.covers(r, c) || !r.matchesCanon(cp) {
			continue
		}
		prefix := r.prefix
		if code != "" {
			// A file that runs code later: the rule's literal beginning names it, or
			// its protected folder, whole.
			if !r.absolute() && cp.inside && strings.HasPrefix(prefix, code) || r.absolute() && strings.HasPrefix(prefix, codeAbs(code, cp)) {
				return true
			}
			continue
		}
		target := cp.rel
		if r.absolute() {
			target = cp.abs
		}
		if protectedRoot(target) != "" && strings.HasPrefix(prefix, protectedRoot(target)) {
			return true
		}
		// Outside the project: an absolute rule that names the file's folder at least.
		if !cp.inside && r.absolute() && strings.HasPrefix(cp.abs, prefix) && len(prefix) >= len(filepath.Dir(cp.abs)) && len(prefix) > 1 {
			return true
		}
	}
	return false
}

// codeAbs is root (from codeRoot) as an absolute path.
func codeAbs(root string, cp canonical) string {
	if filepath.IsAbs(root) {
		return root
	}
	return strings.TrimSuffix(cp.abs, strings.TrimPrefix(cp.rel, root))
}

// protectedRoot is the part of p up to its protected folder or file: .gantry, .git,
// .mcp.json, .claude/settings….
func protectedRoot(p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		if s == ".gantry" || s == ".git" || s == ".mcp.json" || s == ".claude" && i+1 < len(segs) {
			if s == ".claude" {
				return strings.Join(segs[:i+2], "/")
			}
			return strings.Join(segs[:i+1], "/")
		}
	}
	return ""
}
