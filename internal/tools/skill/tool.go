package skill

import (
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
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
	Part      string `json:"part,omitempty" jsonschema_description:"One part of the skill to read whole: its ## heading (any case) or its number in the list of parts a skill too long to load whole gives. Omit it to read the skill."`
}

// Options are what read_skill needs of its session.
type Options struct {
	// MaxOutput is the session's bound on a tool result, in characters: a skill
	// loads whole up to WholeBound(MaxOutput).
	MaxOutput int
	// Whole replaces WholeBound(MaxOutput) when set (tests).
	Whole int
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
func Tool(skills []Skill, o Options) tool.Tool { return ToolOf(NewSet(skills), o) }

// ToolOf is Tool over a catalogue that may grow: read_skill finds the skills added
// later, and its description lists those of the moment it is made (see Set).
func ToolOf(set *Set, o Options) tool.Tool {
	sorted := set.List()
	u := &inUse{o: o, granted: map[string]string{}}
	return tool.New(tool.Def[readSkillArgs]{
		Conversation: true,
		Family:       "skills",
		Name:         "read_skill",
		ClaudeNames:  []string{"Skill"},
		Description:  description(sorted),
		Level:        tool.LevelRead,
		Kind:         tool.KindRead,
		Icon:         "📖",
		Counter:      tool.CountSkill,
		Principal:    func(a readSkillArgs) string { return a.Name },
		Title:        func(_ tool.Env, a readSkillArgs, _ []string) string { return "Read the skill " + a.Name },
		Run: func(_ context.Context, _ tool.Env, a readSkillArgs) tool.Result {
			s, ok := set.Find(filepath.Base(a.Name)) // a name, never a path
			if !ok {
				return tool.Fail(unknown(a.Name, set.List()))
			}
			raw, err := load(s)
			if err != nil {
				return tool.Fail(fmt.Sprintf("The skill %q could not be read: %v.", s.Name, pathless(err)))
			}
			whole := o.Whole
			if whole <= 0 {
				whole = WholeBound(o.MaxOutput)
			}
			if a.Part != "" { // a part it does not have puts nothing in use
				if _, err := compose(s, string(raw), a.Arguments, a.Part, "", whole); err != nil {
					return tool.Fail(err.Error())
				}
			}
			text, err := compose(s, string(raw), a.Arguments, a.Part, u.use(s), whole)
			if err != nil {
				return tool.Fail(err.Error())
			}
			// The text is bounded here, at whole: the session's bound does not cut it again.
			return tool.Result{Text: text, Room: whole, Display: tool.Display{Hidden: true}}
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

// fill applies arguments and the skill's folder to a skill's text: every $ARGUMENTS
// is replaced by arguments, or, when the text has none, non-empty arguments make the
// trailer, a last line "ARGUMENTS: …" for the caller to put after what it gives of
// the text; every ${CLAUDE_SKILL_DIR} is the skill's folder.
func fill(text, arguments, dir string) (filled, trailer string) {
	if dir != "" {
		text = strings.ReplaceAll(text, dirPlaceholder, dir)
	}
	switch {
	case strings.Contains(text, placeholder):
		return strings.ReplaceAll(text, placeholder, arguments), ""
	case arguments != "":
		if !strings.HasSuffix(text, "\n") {
			text += "\n"
		}
		return text, "\nARGUMENTS: " + arguments + "\n"
	}
	return text, ""
}
