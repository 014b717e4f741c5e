package skill

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed read_skill.md
var readSkillSentence string

// placeholder is replaced in a skill's text by the call's arguments.
const placeholder = "$ARGUMENTS"

type readSkillArgs struct {
	Name      string `json:"name" jsonschema:"description=The skill's name exactly as listed in this tool's description."`
	Arguments string `json:"arguments,omitempty" jsonschema:"description=Text substituted for $ARGUMENTS in the skill."`
}

// Enabled tells whether read_skill is to be declared: only when there is a skill.
func Enabled(skills []Skill) bool { return len(skills) > 0 }

// Tool returns read_skill over skills, whose output is bounded to maxOutput characters
// (0: no bound). Declare it only when Enabled(skills).
func Tool(skills []Skill, maxOutput int) tool.Tool {
	sorted := append([]Skill(nil), skills...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	byName := make(map[string]Skill, len(sorted))
	for _, s := range sorted {
		byName[s.Name] = s
	}
	return tool.New(tool.Def[readSkillArgs]{
		Name:        "read_skill",
		Description: description(sorted),
		Level:       tool.LevelRead,
		Kind:        tool.KindRead,
		Icon:        "📖",
		Counter:     tool.CountSkill,
		Principal:   func(a readSkillArgs) string { return a.Name },
		Title:       func(_ tool.Env, a readSkillArgs, _ []string) string { return "Read the skill " + a.Name },
		Run: func(_ context.Context, _ tool.Env, a readSkillArgs) tool.Result {
			s, ok := byName[filepath.Base(a.Name)] // a name, never a path
			if !ok {
				return tool.Fail(unknown(a.Name, sorted))
			}
			return read(s, a.Arguments, maxOutput)
		},
	})
}

// description is the fixed sentence followed by one ` <name> — <description>` line per
// skill, sorted by name.
func description(sorted []Skill) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(readSkillSentence))
	for _, s := range sorted {
		d := s.Description
		if d == "" {
			d = "(no description)"
		}
		fmt.Fprintf(&b, "\n %s — %s", s.Name, d)
	}
	return b.String()
}

// unknown is the text for a name that is not in the catalogue.
func unknown(name string, sorted []Skill) string {
	names := make([]string, len(sorted))
	for i, s := range sorted {
		names[i] = s.Name
	}
	return fmt.Sprintf("No skill named %q. Available skills: %s", name, strings.Join(names, ", "))
}

// read returns the skill's whole markdown with the arguments substituted, hidden
// from the terminal.
func read(s Skill, arguments string, maxOutput int) tool.Result {
	text, err := Read(s, arguments)
	if err != nil {
		return tool.Fail(fmt.Sprintf("The skill %q could not be read: %v.", s.Name, err))
	}
	return tool.Result{Text: tool.Bound(text, maxOutput), Display: tool.Display{Hidden: true}}
}

// Read returns the whole markdown of s (from disk, or from the binary for a built-in
// skill) with arguments applied as read_skill applies them: every $ARGUMENTS is
// replaced by arguments, or, when the text has none, non-empty arguments are appended
// on a last line "ARGUMENTS: …". The text is not bounded.
func Read(s Skill, arguments string) (string, error) {
	b, err := load(s)
	if err != nil {
		return "", err
	}
	return substitute(string(b), arguments), nil
}

// substitute applies arguments to a skill's text: see Read.
func substitute(text, arguments string) string {
	switch {
	case strings.Contains(text, placeholder):
		return strings.ReplaceAll(text, placeholder, arguments)
	case arguments != "":
		return strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + arguments + "\n"
	}
	return text
}
