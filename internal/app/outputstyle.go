package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/config"
)

// eventOutputStyle is the session event that records an output style chosen with
// /output-style, so a resumed session keeps it.
const eventOutputStyle = "output_style"

type outputStyleEvent struct {
	Name string `json:"name"` // "" for the default
}

// styleState is the output style in force: its name ("" for none) and the section it
// ended the system prompt with.
type styleState struct {
	name, section string
}

// OutputStyles returns the output styles found for the session's folder, then
// those of its plugins (named plugin:name).
func (a *App) OutputStyles() ([]config.OutputStyle, error) {
	return allOutputStyles(a.cfg, a.opts.Cwd)
}

// allOutputStyles are the output styles of the folders of cwd, then those of cfg's
// plugins; an error names what could not be read, after the others are read.
func allOutputStyles(cfg *config.Config, cwd string) ([]config.OutputStyle, error) {
	styles, err := config.OutputStyles(cwd)
	ps, perr := config.PluginOutputStyles(cfg.Plugins())
	return append(styles, ps...), errors.Join(err, perr)
}

// OutputStyle returns the name of the output style in force, "" for the default.
func (a *App) OutputStyle() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.style.name
}

// SetOutputStyle switches the output style to name ("default" or "" for none) and
// stores the choice in the session. The style goes at the end of the system prompt,
// which changes it: the next request caches the prompt anew, once (as a mode change
// would). It returns the style's name as written in its file.
func (a *App) SetOutputStyle(name string) (string, error) {
	s, err := a.findOutputStyle(name)
	if err != nil {
		return "", err
	}
	a.applyOutputStyle(s)
	if err := a.records.AppendEvent(eventOutputStyle, outputStyleEvent{Name: s.Name}); err != nil {
		return s.Name, fmt.Errorf("storing the output style: %w", err)
	}
	return s.Name, nil
}

// findOutputStyle finds the style named name, in any case; "default" and "" are the
// empty style.
func (a *App) findOutputStyle(name string) (config.OutputStyle, error) {
	name = strings.TrimSpace(name)
	if name == "" || strings.EqualFold(name, "default") {
		return config.OutputStyle{}, nil
	}
	styles, err := a.OutputStyles()
	for _, s := range styles {
		if strings.EqualFold(s.Name, name) {
			return s, nil
		}
	}
	if err != nil {
		return config.OutputStyle{}, fmt.Errorf("there is no output style named %q (and %w)", name, err)
	}
	return config.OutputStyle{}, fmt.Errorf("there is no output style named %q: /output-style lists them", name)
}

// applyOutputStyle replaces the output style section at the end of the system prompt.
func (a *App) applyOutputStyle(s config.OutputStyle) {
	a.mu.Lock()
	defer a.mu.Unlock()
	section := styleSection(s)
	a.agent.Config.System = strings.TrimSuffix(a.agent.Config.System, a.style.section) + section
	a.style = styleState{name: s.Name, section: section}
}

// styleSection is what an output style adds to the end of the system prompt.
func styleSection(s config.OutputStyle) string {
	if s.Name == "" || s.Body == "" {
		return ""
	}
	rank := "They take precedence over the ways of working above wherever the two differ."
	if s.KeepCodingInstructions {
		rank = "Keep working as described above; they change how you answer, not how you work."
	}
	return fmt.Sprintf("\n<output-style name=%q>\nThe person chose this output style: follow its instructions in every answer. %s\n\n%s\n</output-style>\n",
		s.Name, rank, s.Body)
}

// startOutputStyle sets the output style a session starts with: a resumed session's
// last choice, else Claude Code's outputStyle setting. It returns the notices for a
// style that cannot be found (the session goes on with the default).
func (a *App) startOutputStyle() []string {
	name, from := config.ClaudeOutputStyle(a.opts.Cwd), "Claude Code's outputStyle setting"
	if a.resumed {
		events, err := a.sess.Events(eventOutputStyle)
		if err != nil {
			return []string{"the session's output style could not be read: " + err.Error()}
		}
		if len(events) > 0 {
			var e outputStyleEvent
			if err := json.Unmarshal(events[len(events)-1].Payload, &e); err != nil {
				return []string{"the session's output style could not be read: " + err.Error()}
			}
			name, from = e.Name, "the session's output style"
		}
	}
	s, err := a.findOutputStyle(name)
	if err != nil {
		return []string{fmt.Sprintf("%s: %v; the default style is used", from, err)}
	}
	a.applyOutputStyle(s)
	return nil
}
