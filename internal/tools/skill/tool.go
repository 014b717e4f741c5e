package skill

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed read_skill.md
var readSkillSentence string

// placeholder is replaced in a skill's text by the call's arguments.
const placeholder = "$ARGUMENTS"

// dirPlaceholder is replaced in a skill's text by the skill's folder (Claude Code's).
const dirPlaceholder = "${CLAUDE_SKILL_DIR}"

type readSkillArgs struct {
	Name      string `json:"name" jsonschema_description:"The skill's name exactly as listed in this tool's description."`
	Arguments string `json:"arguments,omitempty" jsonschema_description:"Text substituted for $ARGUMENTS in the skill."`
}

// Options are what read_skill needs of its session.
type Options struct {
	// MaxOutput bounds the output, in characters (0: no bound).
	MaxOutput int
	// Allow keeps the rules of a skill's allowed-tools for the rest of the session
	// (nil: allowed-tools allow nothing, as outside a session).
	Allow Allower
	// Known tells whether gantry has a tool of this name (nil: every name).
	Known func(name string) bool
	// Notify tells the person what a skill allowed (nil: nobody is told).
	Notify func(face.Notice)
}

// Enabled tells whether read_skill is to be declared: only when there is a skill.
func Enabled(skills []Skill) bool { return len(skills) > 0 }

// Tool returns read_skill over skills. Declare it only when Enabled(skills).
//
// A skill is in use from the moment read_skill returns its text until the session
// ends: the tools of its allowed-tools then run without asking (deny rules, plan mode
// and protected paths aside), for every later call of the session and of its
// subagents, which share its gate. Reading it again adds nothing.
func Tool(skills []Skill, o Options) tool.Tool {
	sorted := append([]Skill(nil), skills...)
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Name < sorted[j].Name })
	byName := make(map[string]Skill, len(sorted))
	for _, s := range sorted {
		byName[s.Name] = s
	}
	u := &inUse{o: o, granted: map[string]string{}}
	return tool.New(tool.Def[readSkillArgs]{
		Conversation: true,
		Family:       "skills",
		Name:         "read_skill",
		Aliases:      []string{"Skill"},
		Description:  description(sorted),
		Level:        tool.LevelRead,
		Kind:         tool.KindRead,
		Icon:         "📖",
		Counter:      tool.CountSkill,
		Principal:    func(a readSkillArgs) string { return a.Name },
		Title:        func(_ tool.Env, a readSkillArgs, _ []string) string { return "Read the skill " + a.Name },
		Run: func(_ context.Context, _ tool.Env, a readSkillArgs) tool.Result {
			s, ok := byName[filepath.Base(a.Name)] // a name, never a path
			if !ok {
				return tool.Fail(unknown(a.Name, sorted))
			}
			raw, err := load(s)
			if err != nil {
				return tool.Fail(fmt.Sprintf("The skill %q could not be read: %v.", s.Name, pathless(err)))
			}
			header := ""
			if dir := s.Dir(); dir != "" {
				header = "Base directory for this skill: " + dir + "\n"
			}
			if allowed := u.use(s); allowed != "" {
				header += allowed + "\n"
			}
			if header != "" {
				header += "\n"
			}
			return tool.Result{Text: render(s, string(raw), a.Arguments, header, o.MaxOutput), Display: tool.Display{Hidden: true}}
		},
	})
}

// inUse keeps what the skills read in this session allowed.
type inUse struct {
	o       Options
	mu      sync.Mutex
	granted map[string]string // skill name → the sentence of what it allowed
}

// use puts s in use: the first time, its allowed-tools become session rules and the
// person is told in one notice. It returns the sentence for the model ("" when the
// skill allows nothing).
func (u *inUse) use(s Skill) string {
	if len(s.AllowedTools) == 0 || u.o.Allow == nil {
		return ""
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if said, ok := u.granted[s.Name]; ok {
		return said
	}
	a := allowanceOf(s, u.o.Known)
	var kept []string
	for _, r := range a.rules {
		if err := u.o.Allow.AllowForSession([]string{r}); err != nil {
			a.ignored = append(a.ignored, fmt.Sprintf("%s (%v)", r, err))
			continue
		}
		kept = append(kept, r)
	}
	a.rules = kept
	said := describeAllowance(s.Name, a)
	u.granted[s.Name] = said
	if u.o.Notify != nil {
		u.o.Notify(face.Notice{Text: said, Info: len(a.ignored) == 0})
	}
	return said
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

// Read returns the whole markdown of s (from disk, or from the binary for a built-in
// skill) with arguments applied as read_skill applies them: every $ARGUMENTS is
// replaced by arguments, or, when the text has none, non-empty arguments are appended
// on a last line "ARGUMENTS: …"; every ${CLAUDE_SKILL_DIR} is the skill's folder. The
// text is not bounded.
func Read(s Skill, arguments string) (string, error) {
	b, err := load(s)
	if err != nil {
		return "", err
	}
	return substitute(string(b), arguments, s.Dir()), nil
}

// substitute applies arguments and the skill's folder to a skill's text: see Read.
func substitute(text, arguments, dir string) string {
	if dir != "" {
		text = strings.ReplaceAll(text, dirPlaceholder, dir)
	}
	switch {
	case strings.Contains(text, placeholder):
		return strings.ReplaceAll(text, placeholder, arguments)
	case arguments != "":
		return strings.TrimRight(text, "\n") + "\n\nARGUMENTS: " + arguments + "\n"
	}
	return text
}
