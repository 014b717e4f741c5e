package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// UserDir returns the user's gantry configuration folder: $GANTRY_CONFIG_DIR when set,
// else $XDG_CONFIG_HOME/gantry, else ~/.config/gantry.
func UserDir() string {
	if d := os.Getenv("GANTRY_CONFIG_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "gantry")
	}
	if home, err := os.UserHomeDir(); err == nil && home != "" {
		return filepath.Join(home, ".config", "gantry")
	}
	return filepath.Join(".gantry", "user") // no home at all: keep out of "/"
}

// ProjectRoot returns the nearest folder at or above cwd that holds .git (a folder, or
// a file as in worktrees and submodules), or cwd itself when there is none.
func ProjectRoot(cwd string) string {
	cwd = absClean(cwd)
	for dir := cwd; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return cwd
		}
		dir = parent
	}
}

// SkillDirs returns the skill folders to search, in order: gantry's — SkillsDir
// resolved against the project root (by default .gantry/skills), then the user's
// skills folder (UserDir()/skills) — then Claude Code's: the project's .claude/skills,
// then Claude Code's user folder's (~/.claude/skills, or $CLAUDE_CONFIG_DIR/skills). Each folder is listed once; the
// first skill found with a name wins (see skill.Catalog).
func (c *Config) SkillDirs() []string {
	var out []string
	seen := map[string]bool{}
	dirs := append(slices.Clone(c.SkillsDir), filepath.Join(UserDir(), "skills"), filepath.Join(".claude", "skills"))
	if d := ClaudeDir(); d != "" {
		dirs = append(dirs, filepath.Join(d, "skills"))
	}
	for _, d := range dirs {
		d = expandHome(d)
		if !filepath.IsAbs(d) {
			d = filepath.Join(c.root, d)
		}
		d = filepath.Clean(d)
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	return out
}

// expandHome replaces a leading "~/" (or a lone "~") with the home folder.
func expandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return p
	}
	return filepath.Join(home, p[1:])
}

func absClean(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}
