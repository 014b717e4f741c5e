package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/gantry-dev/gantry/internal/walk"
)

// rulesDir is Claude Code's folder of rule files, in a project folder's .claude and in
// Claude Code's user folder: every .md file in it and its subfolders is a rule.
var rulesDir = filepath.Join(".claude", "rules")

// Rule is a rule file whose front matter's paths scope it to some files: it becomes
// memory when the model first touches a file matching one of its globs.
type Rule struct {
	// Path is the rule file.
	Path string
	// Base is the folder the globs are relative to: the folder holding the .claude
	// folder of a project's rule, the project root for a user's rule.
	Base string
	// Globs are the paths patterns, as written.
	Globs []string
	globs []*walk.Glob
}

// Matches reports whether the absolute path p is one of the rule's files.
func (r Rule) Matches(p string) bool {
	rel, err := filepath.Rel(r.Base, p)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return false
	}
	rel = filepath.ToSlash(rel)
	for _, g := range r.globs {
		if g.Match(rel) {
			return true
		}
	}
	return false
}

// rules adds the rule files under dir (recursively, in lexical order) that have no
// paths, and returns those that have: they wait for a touch. base is the folder the
// globs of the rules are relative to. A rule that cannot be read is an error, after
// the others are added.
func (a *assembler) rules(dir, base string) (scoped []Rule, err error) {
	var errs []error
	walkErr := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			errs = append(errs, fmt.Errorf("rules folder: %w", err))
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".md") {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			if !isDirErr(path, err) {
				errs = append(errs, fmt.Errorf("rule file: %w", err))
			}
			return nil
		}
		body, globs := parseRule(string(data))
		if len(globs) > 0 {
			r := Rule{Path: path, Base: base}
			for _, g := range globs {
				if c, err := walk.CompileGlob(g); err == nil {
					r.Globs, r.globs = append(r.Globs, g), append(r.globs, c)
				}
			}
			if len(r.globs) > 0 {
				scoped = append(scoped, r)
				return nil
			}
		}
		_, err = a.addText(path, body, "", 0)
		errs = append(errs, err)
		return nil
	})
	errs = append(errs, walkErr)
	return scoped, errors.Join(errs...)
}

// parseRule splits a rule file into its text without the front matter and the globs
// of its paths key (a list, or one string of patterns separated by commas). Front matter that is not valid YAML is
// left in the text, and the rule has no paths.
func parseRule(text string) (body string, globs []string) {
	rest, ok := strings.CutPrefix(strings.TrimPrefix(text, "\ufeff"), "---\n")
	if !ok {
		return text, nil
	}
	end := strings.Index(rest, "\n---")
	var block string
	switch {
	case strings.HasPrefix(rest, "---"):
		block, rest = "", rest[3:]
	case end >= 0:
		block, rest = rest[:end], rest[end+4:]
	default:
		return text, nil
	}
	var fm struct {
		Paths any `yaml:"paths"`
	}
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		return text, nil
	}
	switch p := fm.Paths.(type) {
	case string:
		globs = splitPaths(p)
	case []any:
		for _, v := range p {
			if s, ok := v.(string); ok && strings.TrimSpace(s) != "" {
				globs = append(globs, strings.TrimSpace(s))
			}
		}
	}
	return strings.TrimLeft(rest, "\n"), globs
}

// splitPaths reads a paths string as Claude Code does: patterns separated by commas
// outside braces ("**/*.ts, **/*.tsx" is two, "src/**/*.{ts,tsx}" is one), each
// trimmed; empty ones are left out.
func splitPaths(s string) (globs []string) {
	depth, start := 0, 0
	for i, r := range s + "," {
		switch {
		case r == '{':
			depth++
		case r == '}' && depth > 0:
			depth--
		case r == ',' && depth == 0:
			if g := strings.TrimSpace(s[start:i]); g != "" {
				globs = append(globs, g)
			}
			start = i + 1
		}
	}
	return globs
}
