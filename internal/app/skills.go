package app

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// Skills lists the skills the session found, the project's plugins' included once the
// folder is trusted.
func (a *App) Skills() []skill.Skill { return a.skills.List() }

// skillCommand rewrites "/name input" naming a skill into "@skill:name input", which
// ExpandPrompt then loads as read_skill would (its folder first; whole, or its start
// and its parts): the one place every face's /skill form goes through. Without input
// the model is asked to follow the skill.
func (a *App) skillCommand(prompt string) string {
	t := strings.TrimSpace(prompt)
	if !strings.HasPrefix(t, "/") {
		return prompt
	}
	name, input, _ := strings.Cut(t[1:], " ")
	if _, ok := a.skills.Find(name); !ok || name == "" {
		return prompt
	}
	if input = strings.TrimSpace(input); input == "" {
		input = "Follow this skill."
	}
	return "@skill:" + name + " " + input
}

// addTrustedSkills adds to the catalogue the skills a trust given during the session
// brings (the project's plugins'): read_skill, @skill: and /name find them at once.
// read_skill's description, part of the declared tools and so of the cached prefix,
// keeps its list; the model is told of the new skills in a reminder that goes, and is
// stored, with the next prompt. What the catalogue could not use is said once.
func (a *App) addTrustedSkills() {
	found, notices := skill.CatalogWith(a.cfg.SkillDirs(), pluginSkills(a.cfg.Plugins()))
	added := a.skills.Add(found)
	a.mu.Lock()
	var fresh []string
	for _, n := range notices {
		if !slices.Contains(a.skillNotes, n) {
			a.skillNotes = append(a.skillNotes, n)
			fresh = append(fresh, n)
		}
	}
	a.mu.Unlock()
	for _, n := range fresh {
		a.emit(face.Notice{Text: n})
	}
	if len(added) == 0 {
		return
	}
	var b strings.Builder
	b.WriteString("<system-reminder>The folder was trusted, so these skills can be loaded with read_skill too, as those of its description:")
	for _, s := range added {
		d := s.Description
		if d == "" {
			d = "(no description)"
		}
		fmt.Fprintf(&b, "\n %s — %s", s.Name, d)
	}
	b.WriteString("\n</system-reminder>")
	a.noteStart(b.String())
}
