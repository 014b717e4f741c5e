package skill

import (
	"embed"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
)

// builtinFS holds the skills shipped inside the binary, one builtin/<name>/SKILL.md each.
//
//go:embed builtin
var builtinFS embed.FS

// builtinScheme starts the Path of a built-in skill: builtin:<name>/SKILL.md names the
// file in builtinFS rather than on disk.
const builtinScheme = "builtin:"

// Builtin returns the skills shipped inside gantry, sorted by name. Their Path is a
// pseudo path, builtin:<name>/SKILL.md, that Read and read_skill serve from the binary.
func Builtin() []Skill {
	entries, err := fs.ReadDir(builtinFS, "builtin")
	if err != nil {
		panic("skill: the embedded built-in skills are missing: " + err.Error())
	}
	var skills []Skill
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		rel := e.Name() + "/SKILL.md"
		b, err := fs.ReadFile(builtinFS, path.Join("builtin", rel))
		if err != nil {
			continue
		}
		m := parseMeta(string(b))
		skills = append(skills, Skill{Name: e.Name(), Description: m.description, Path: builtinScheme + rel, AllowedTools: m.allowed})
	}
	sort.Slice(skills, func(i, j int) bool { return skills[i].Name < skills[j].Name })
	return skills
}

// IsBuiltin tells whether s is one of the skills shipped inside gantry (by its Path).
func IsBuiltin(s Skill) bool { return strings.HasPrefix(s.Path, builtinScheme) }

// load returns the markdown of s: from the binary for a built-in skill, else from disk.
func load(s Skill) ([]byte, error) {
	if rel, ok := strings.CutPrefix(s.Path, builtinScheme); ok {
		return fs.ReadFile(builtinFS, path.Join("builtin", rel))
	}
	return os.ReadFile(s.Path)
}
