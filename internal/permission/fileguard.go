package permission

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// FileGuard returns the per-file check of a call of the tool name (see tool.FileGuard):
// the engine's deny rules of the file-reading or file-writing family, the deny rules
// that name the tool itself when its calls read or write files, and the session's
// "deny always" answers about a file, matched on the canonical form of each path as
// checkFiles matches a call's paths. Only refusals come from it: what the gate asks
// or allows was decided on the call as a whole.
func (e *Engine) FileGuard(name string) tool.FileGuard {
	return fileGuard{e: e, tool: name}
}

type fileGuard struct {
	e    *Engine
	tool string
}

func (g fileGuard) Read(abs string) error  { return g.e.guard(g.tool, tool.FilesRead, abs) }
func (g fileGuard) Write(abs string) error { return g.e.guard(g.tool, tool.FilesWrite, abs) }

// guard checks one file for a call of name that reads (kind FilesRead) or writes it.
func (e *Engine) guard(name string, kind tool.Files, abs string) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := Call{Tool: name, Files: kind, Paths: []string{abs}}
	var cp *canonical
	canon := func() canonical { // resolved once, and only when a rule may apply
		if cp == nil {
			x := e.canon(abs)
			cp = &x
		}
		return *cp
	}
	for _, r := range e.deny {
		if !e.guards(r, name, kind) {
			continue
		}
		if r.matchesCanon(canon()) {
			return &tool.FileDenied{Path: canon().rel, Rule: r.describe(), Write: kind == tool.FilesWrite}
		}
	}
	for _, m := range e.remember {
		if m.allow || m.files != kind {
			continue
		}
		for _, p := range m.paths {
			if e.canon(p).abs == canon().abs {
				return &tool.FileDenied{Path: canon().rel, Rule: fmt.Sprintf("your answer \"deny always\" to %s", m.tool), Write: kind == tool.FilesWrite}
			}
		}
	}
	if kind == tool.FilesWrite && e.mode == ModeYolo && e.sandboxed != nil && e.sandboxed(e.mode) {
		if why := e.protected(canon()); strings.HasPrefix(why, "gantry") && !e.allowsProtected(c, canon()) {
			return &tool.FileDenied{Path: canon().rel, Rule: fmt.Sprintf("of yolo's sandbox, which keeps %s read-only (%s:%s would allow it)", why, name, regexp.QuoteMeta(canon().rel)), Write: true}
		}
	}
	return nil
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
