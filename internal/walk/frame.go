package walk

import (
	"os"
	"path/filepath"
	"strings"
)

// frame holds the ignore files of one directory; directories without any share their
// parent's frame.
type frame struct {
	parent *frame
	// dir is the directory's path relative to the walk's base, with a trailing slash
	// ("" for the base itself).
	dir       string
	ignore    *Ignore // .ignore
	gitignore *Ignore // .gitignore
	exclude   *Ignore // .git/info/exclude
	hasGit    bool    // the directory holds .git
	anyGit    bool    // it or an ancestor holds .git
	global    *Ignore // the global excludes file (shared by all frames)
	rootLen   int     // length of the root's own dir prefix, for global matching
}

// child returns the frame of directory dir (base-relative, trailing slash) given which
// of the special names it holds; abs is its absolute path.
func (f *frame) child(abs, dir string, hasIgnore, hasGitignore, hasGit bool) *frame {
	if !hasIgnore && !hasGitignore && !hasGit {
		return f
	}
	c := &frame{parent: f, dir: dir, hasGit: hasGit}
	if f != nil {
		c.anyGit, c.global, c.rootLen = f.anyGit, f.global, f.rootLen
	}
	c.anyGit = c.anyGit || hasGit
	if hasIgnore {
		c.ignore = readIgnore(filepath.Join(abs, ".ignore"))
	}
	if hasGitignore {
		c.gitignore = readIgnore(filepath.Join(abs, ".gitignore"))
	}
	if hasGit {
		c.exclude = readIgnore(filepath.Join(abs, ".git", "info", "exclude"))
	}
	return c
}

func readIgnore(p string) *Ignore {
	data, err := os.ReadFile(p)
	if err != nil || len(data) == 0 {
		return nil
	}
	ig := ParseIgnore(data)
	if ig.Empty() {
		return nil
	}
	return ig
}

// match applies the ignore rules to full, a base-relative path, with ripgrep's
// precedence: .ignore, then .gitignore (up to the nearest repository root), then
// .git/info/exclude, then the global file; the deepest directory's file decides first.
func (f *frame) match(full string, isDir bool) Verdict {
	if f == nil {
		return None
	}
	var mIgnore, mGit, mExclude Verdict
	sawGit := false
	for fr := f; fr != nil; fr = fr.parent {
		rel := full[len(fr.dir):]
		if mIgnore == None && fr.ignore != nil {
			mIgnore = fr.ignore.Match(rel, isDir)
		}
		if f.anyGit && !sawGit {
			if mGit == None && fr.gitignore != nil {
				mGit = fr.gitignore.Match(rel, isDir)
			}
			if mExclude == None && fr.exclude != nil {
				mExclude = fr.exclude.Match(rel, isDir)
			}
		}
		sawGit = sawGit || fr.hasGit
	}
	switch {
	case mIgnore != None:
		return mIgnore
	case mGit != None:
		return mGit
	case mExclude != None:
		return mExclude
	case f.anyGit && f.global != nil && len(full) > f.rootLen:
		return f.global.Match(full[f.rootLen:], isDir)
	}
	return None
}

// globalExcludes reads git's global excludes file: core.excludesFile of ~/.gitconfig,
// else $XDG_CONFIG_HOME/git/ignore or ~/.config/git/ignore.
func globalExcludes() *Ignore {
	home, _ := os.UserHomeDir()
	if p := excludesFromGitconfig(home); p != "" {
		return readIgnore(p)
	}
	if x := os.Getenv("XDG_CONFIG_HOME"); x != "" {
		return readIgnore(filepath.Join(x, "git", "ignore"))
	}
	if home == "" {
		return nil
	}
	return readIgnore(filepath.Join(home, ".config", "git", "ignore"))
}

// excludesFromGitconfig finds core.excludesFile in ~/.gitconfig (a plain reading: no
// includes, no conditional sections).
func excludesFromGitconfig(home string) string {
	if home == "" {
		return ""
	}
	data, err := os.ReadFile(filepath.Join(home, ".gitconfig"))
	if err != nil {
		return ""
	}
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if strings.HasPrefix(line, "[") {
			section = strings.ToLower(strings.Trim(line, "[] \t"))
			continue
		}
		k, v, ok := strings.Cut(line, "=")
		if !ok || section != "core" || !strings.EqualFold(strings.TrimSpace(k), "excludesfile") {
			continue
		}
		v = strings.Trim(strings.TrimSpace(v), `"`)
		if strings.HasPrefix(v, "~/") {
			v = filepath.Join(home, v[2:])
		}
		return v
	}
	return ""
}
