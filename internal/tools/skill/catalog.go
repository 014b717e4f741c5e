package skill

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// Skill is one skill of the catalogue.
type Skill struct {
	// Name is the file's name without .md, or the folder's name for <name>/SKILL.md.
	Name string
	// Description is one line: the front matter's description, else the first paragraph.
	Description string
	// Path is the skill's markdown file.
	Path string
}

// Catalog finds the skills of dirs, in order of precedence (the project's, then the
// user's), then the built-in skills (see Builtin): a skill is <dir>/<name>.md, or
// <dir>/<name>/SKILL.md when there is no flat file, and the first dir that holds a name
// wins, so a user's skill replaces a built-in one of the same name. A missing dir holds
// no skill. The result is sorted by name; an error is returned only for a dir or skill
// that exists but cannot be read.
func Catalog(dirs ...string) ([]Skill, error) {
	byName := map[string]Skill{}
	for _, dir := range dirs {
		found, err := scan(dir)
		if err != nil {
			return nil, err
		}
		for _, s := range found {
			if _, taken := byName[s.Name]; !taken {
				byName[s.Name] = s
			}
		}
	}
	for _, s := range Builtin() {
		if _, taken := byName[s.Name]; !taken {
			byName[s.Name] = s
		}
	}
	skills := make([]Skill, 0, len(byName))
	for _, s := range byName {
		skills = append(skills, s)
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, nil
}

// scan returns the skills of one dir, the flat file winning over the folder.
func scan(dir string) ([]Skill, error) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("skills folder: %w", err)
	}
	paths, folders := map[string]string{}, map[string]string{}
	for _, e := range entries {
		name, path, flat, ok := candidate(dir, e)
		switch {
		case !ok:
		case flat:
			paths[name] = path
		default:
			folders[name] = path
		}
	}
	for name, path := range folders {
		if _, ok := paths[name]; !ok { // the flat file wins
			paths[name] = path
		}
	}
	skills := make([]Skill, 0, len(paths))
	for name, path := range paths {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("skill %s: %w", name, err)
		}
		skills = append(skills, Skill{Name: name, Description: describe(string(b)), Path: path})
	}
	return skills, nil
}

// candidate tells whether the entry e of dir is a skill, its name and file, and whether
// it is a flat <name>.md. Symbolic links are followed; hidden entries are skipped.
func candidate(dir string, e fs.DirEntry) (name, path string, flat, ok bool) {
	if strings.HasPrefix(e.Name(), ".") {
		return "", "", false, false
	}
	path = filepath.Join(dir, e.Name())
	fi, err := os.Stat(path)
	switch {
	case err != nil: // a dangling link
		return "", "", false, false
	case fi.IsDir():
		file := filepath.Join(path, "SKILL.md")
		st, err := os.Stat(file)
		return e.Name(), file, false, err == nil && st.Mode().IsRegular()
	case fi.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".md") && e.Name() != ".md":
		return strings.TrimSuffix(e.Name(), ".md"), path, true, true
	}
	return "", "", false, false
}
