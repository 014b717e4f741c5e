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
	// Name is the front matter's name; without one, the file's name without .md, or
	// the folder's name for <name>/SKILL.md.
	Name string
	// Description is one line of at most 1,024 characters: the front matter's
	// description, else the first paragraph.
	Description string
	// Path is the skill's markdown file.
	Path string
	// AllowedTools are the entries of the front matter's allowed-tools, one tool each
	// as written (Claude's names or gantry's, with an optional pattern in parentheses).
	AllowedTools []string
}

// Dir is the skill's folder, where the files beside its SKILL.md are: "" for a
// built-in skill, which has none.
func (s Skill) Dir() string {
	if IsBuiltin(s) || s.Path == "" {
		return ""
	}
	return filepath.Dir(s.Path)
}

// Catalog finds the skills of dirs, in order of precedence (see config.SkillDirs:
// gantry's folders, then Claude Code's), then the built-in skills (see Builtin). A skill
// is <dir>/<name>.md or <dir>/<name>/SKILL.md; in one folder the flat files are taken
// first, then the folders, each in name order. The first skill found with a name wins:
// a later one of the same name is left out with a notice naming both files (a user's
// skill replacing a built-in one is no clash, and the same file reached twice through
// a symbolic link is taken once). A missing dir holds no skill.
//
// The notices are sentences for the person: a folder or a skill that cannot be read
// (left out), a clash, and what could not be used in a skill's front matter (its
// malformed YAML, a name that is not a string, a description too long or missing);
// each says what gantry does instead. The result is sorted by name.
func Catalog(dirs ...string) (skills []Skill, notices []string) {
	return CatalogWith(dirs, nil)
}

// PluginDir is a plugin's skills folder: its skills are named plugin:name, as Claude
// Code shows them.
type PluginDir struct {
	Plugin, Path string
}

// CatalogWith is Catalog with the skills of plugin folders, searched after dirs.
func CatalogWith(dirs []string, plugins []PluginDir) (skills []Skill, notices []string) {
	all := make([]PluginDir, 0, len(dirs)+len(plugins))
	for _, d := range dirs {
		all = append(all, PluginDir{Path: d})
	}
	all = append(all, plugins...)
	byName := map[string]Skill{}
	for _, dir := range all {
		found, problems := scan(dir.Path)
		notices = append(notices, problems...)
		for _, s := range found {
			if dir.Plugin != "" {
				s.Name = dir.Plugin + ":" + s.Name
			}
			first, taken := byName[s.Name]
			switch {
			case !taken:
				byName[s.Name] = s
			case !sameFile(first.Path, s.Path):
				notices = append(notices, fmt.Sprintf("Two skills are named %q: %s is used and %s is left out (the first found in the search order wins).", s.Name, first.Path, s.Path))
			}
		}
	}
	for _, s := range Builtin() {
		if _, taken := byName[s.Name]; !taken {
			byName[s.Name] = s
		}
	}
	skills = make([]Skill, 0, len(byName))
	for _, s := range byName {
		skills = append(skills, s)
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills, notices
}

// scan returns the skills of one dir in the order they are found (flat files, then
// folders, each by name) and the notices of what could not be used.
func scan(dir string) (skills []Skill, notices []string) {
	if dir == "" {
		return nil, nil
	}
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []string{fmt.Sprintf("The skills folder %s cannot be read (%v), so its skills are left out.", dir, pathless(err))}
	}
	var flat, folders []candidate
	for _, e := range entries {
		c, ok := candidateOf(dir, e)
		switch {
		case !ok:
		case c.flat:
			flat = append(flat, c)
		default:
			folders = append(folders, c)
		}
	}
	for _, c := range append(flat, folders...) {
		b, err := os.ReadFile(c.path)
		if err != nil {
			notices = append(notices, fmt.Sprintf("The skill %s cannot be read (%v), so it is left out.", c.path, pathless(err)))
			continue
		}
		m := parseMeta(string(b))
		name := m.name
		if name == "" {
			name = c.name
		}
		if len(m.problems) > 0 {
			notices = append(notices, fmt.Sprintf("The skill %s (%s): %s.", name, c.path, strings.Join(m.problems, "; ")))
		}
		skills = append(skills, Skill{Name: name, Description: m.description, Path: c.path, AllowedTools: m.allowed})
	}
	return skills, notices
}

// candidate is an entry of a skills folder that holds a skill: its file, the name
// the file gives it, and whether it is a flat <name>.md.
type candidate struct {
	name, path string
	flat       bool
}

// candidateOf tells whether the entry e of dir is a skill. Symbolic links are
// followed; hidden entries are skipped.
func candidateOf(dir string, e fs.DirEntry) (candidate, bool) {
	if strings.HasPrefix(e.Name(), ".") {
		return candidate{}, false
	}
	path := filepath.Join(dir, e.Name())
	fi, err := os.Stat(path)
	switch {
	case err != nil: // a dangling link
		return candidate{}, false
	case fi.IsDir():
		file := filepath.Join(path, "SKILL.md")
		st, err := os.Stat(file)
		return candidate{name: e.Name(), path: file}, err == nil && st.Mode().IsRegular()
	case fi.Mode().IsRegular() && strings.HasSuffix(e.Name(), ".md"):
		return candidate{name: strings.TrimSuffix(e.Name(), ".md"), path: path, flat: true}, true
	}
	return candidate{}, false
}

// sameFile tells whether two paths name one file (a folder linked into another).
func sameFile(a, b string) bool {
	if a == b {
		return true
	}
	fa, errA := os.Stat(a)
	fb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(fa, fb)
}

// pathless is an error's reason without the path it names (the sentence names it).
func pathless(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
