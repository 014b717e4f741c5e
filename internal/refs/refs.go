package refs

import (
	"fmt"
	"html"
	"strings"

	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// Options says where and how references are resolved.
type Options struct {
	// Cwd is the folder relative paths are resolved against; empty: the process's.
	Cwd string
	// MaxOutput bounds, in characters, each inserted file or listing (0: no bound); a
	// skill loads whole up to skill.WholeBound(MaxOutput), as read_skill loads it.
	MaxOutput int
	// Skills are the skills @skill:name may name.
	Skills []skill.Skill
}

// Result is an expanded prompt.
type Result struct {
	// Prompt is the prompt as typed, followed by one labelled block per resolved
	// reference: <file path="…">, <folder path="…"> or <skill name="…">.
	Prompt string
	// Notes has one line per reference that could not be resolved.
	Notes []string
	// Files are the absolute paths of the files and folders inserted, each once.
	Files []string
}

// trailing is the punctuation that may end a sentence after a reference; it is dropped
// when the reference with it does not resolve.
const trailing = ".,;:!?)]}>'\""

// Expand resolves the references of prompt: see the package documentation. It never
// fails: what cannot be resolved is left as typed and reported in Result.Notes.
func Expand(prompt string, o Options) Result {
	res := Result{Prompt: prompt}
	x := expander{o: o, seen: map[string]bool{}, noted: map[string]bool{}}
	for _, r := range scan(prompt) {
		switch r.kind {
		case kindSkill:
			x.skill(r)
		default:
			x.path(r)
		}
	}
	if len(x.blocks) > 0 {
		res.Prompt = prompt + "\n\n" + strings.Join(x.blocks, "\n\n")
	}
	res.Notes, res.Files = x.notes, x.files
	return res
}

// expander gathers the blocks, notes and files of one Expand.
type expander struct {
	o      Options
	blocks []string
	notes  []string
	files  []string
	seen   map[string]bool // files and folders inserted, and skills loaded with their arguments
	noted  map[string]bool
}

func (x *expander) note(format string, a ...any) {
	n := fmt.Sprintf(format, a...)
	n = strings.Join(strings.Fields(n), " ") // one line, whatever an error said
	if !x.noted[n] {
		x.noted[n] = true
		x.notes = append(x.notes, n)
	}
}

// path inserts the file or folder of an @file:path or a plain @path.
func (x *expander) path(r ref) {
	abs, ok := x.resolve(r.target)
	if !ok {
		if trimmed := strings.TrimRight(r.target, trailing); trimmed != "" && trimmed != r.target {
			abs, ok = x.resolve(trimmed)
		}
	}
	switch {
	case !ok && r.kind == kindFile:
		x.note("%s: no such file or folder", noteName(r))
		return
	case !ok, x.seen[abs]:
		return // a word that is not a path, or a file already inserted
	}
	x.seen[abs] = true
	block, err := insert(abs, x.shown(abs), x.o.MaxOutput)
	if err != "" {
		x.note("%s: %s", noteName(r), err)
		return
	}
	x.blocks = append(x.blocks, block)
	x.files = append(x.files, abs)
}

// noteName is a path reference as a note names it: as typed, without the punctuation
// that ends a sentence (a quoted path keeps its quotes).
func noteName(r ref) string {
	if strings.HasPrefix(r.typed, `@file:"`) && strings.HasSuffix(r.typed, `"`) && len(r.typed) > len(`@file:"`) {
		return r.typed
	}
	return strings.TrimRight(r.typed, trailing)
}

// skill loads the skill of an @skill:name with its arguments.
func (x *expander) skill(r ref) {
	s, ok := x.findSkill(r.target)
	if !ok {
		s, ok = x.findSkill(strings.TrimRight(r.target, trailing))
	}
	if !ok {
		x.note("%s: no skill named %q (available: %s)", r.typed, r.target, x.skillNames())
		return
	}
	key := "skill\x00" + s.Name + "\x00" + r.args
	if x.seen[key] {
		return
	}
	x.seen[key] = true
	// As read_skill gives it: its folder first, whole up to skill.WholeBound, not
	// cut at MaxOutput.
	text, err := skill.Render(s, r.args, "", skill.WholeBound(x.o.MaxOutput))
	if err != nil {
		x.note("%s: the skill could not be read: %v", r.typed, err)
		return
	}
	x.blocks = append(x.blocks, fmt.Sprintf("<skill name=\"%s\">\n%s</skill>", html.EscapeString(s.Name), withNewline(text)))
}

func (x *expander) findSkill(name string) (skill.Skill, bool) {
	for _, s := range x.o.Skills {
		if s.Name == name && name != "" {
			return s, true
		}
	}
	return skill.Skill{}, false
}

func (x *expander) skillNames() string {
	if len(x.o.Skills) == 0 {
		return "none"
	}
	names := make([]string, len(x.o.Skills))
	for i, s := range x.o.Skills {
		names[i] = s.Name
	}
	return strings.Join(names, ", ")
}
