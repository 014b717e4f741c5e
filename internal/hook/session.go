package hook

import (
	"fmt"
	"strings"
	"time"
)

// Entry describes one hook for listing.
type Entry struct {
	// Source is SourceConfig (a settings file) or SourceSession (register_hook).
	Source  string
	Event   string
	Matcher string // empty: every tool
	// Type is TypeCommand (Command is set) or TypePrompt (Prompt is).
	Type    string
	Command string
	Prompt  string
	Timeout time.Duration
	// OnFailure is "warn" or "block".
	OnFailure string
	// Index is the number by which a session hook is removed; 0 for the settings'.
	Index int
}

// Register adds a session hook for event, for every tool, run after those of the
// settings files. Its index, which Remove takes, is one more than the last index given
// for that event, so that indexes stay stable when hooks are removed. A timeout of 0
// is DefaultTimeout.
func (r *Runner) Register(event, command string, timeout time.Duration) (int, error) {
	if !IsEvent(event) {
		return 0, fmt.Errorf("%q is not a hook event; the events are %s", event, strings.Join(Events(), ", "))
	}
	if strings.TrimSpace(command) == "" {
		return 0, fmt.Errorf("the command of a hook must not be empty")
	}
	if timeout < 0 {
		return 0, fmt.Errorf("the timeout of a hook must not be negative, not %s", timeout)
	}
	own := timeout > 0
	if !own {
		timeout = DefaultTimeout
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	r.next[event]++
	i := r.next[event]
	r.session[event] = append(r.session[event], &spec{
		source: SourceSession, event: event, kind: TypeCommand, command: command, timeout: timeout, ownTimeout: own, onFailure: "warn", index: i,
	})
	return i, nil
}

// Remove removes the session hook of event with the given index. Hooks of the
// settings files cannot be removed. An index is never given twice, so an Entry from
// List names the same hook until it is removed.
func (r *Runner) Remove(event string, index int) error {
	if !IsEvent(event) {
		return fmt.Errorf("%q is not a hook event; the events are %s", event, strings.Join(Events(), ", "))
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	list := r.session[event]
	for i, s := range list {
		if s.index == index {
			r.session[event] = append(list[:i:i], list[i+1:]...)
			return nil
		}
	}
	have := make([]string, len(list))
	for i, s := range list {
		have[i] = fmt.Sprint(s.index)
	}
	if len(have) == 0 {
		return fmt.Errorf("there is no session hook for %s (hooks of the settings files cannot be removed)", event)
	}
	return fmt.Errorf("there is no session hook %d for %s; its session hooks are %s", index, event, strings.Join(have, ", "))
}

// List returns every hook, event by event in the documented order: those of the
// settings files, then the session's.
func (r *Runner) List() []Entry {
	r.mu.RLock()
	defer r.mu.RUnlock()
	var out []Entry
	for _, event := range Events() {
		for _, list := range [][]*spec{r.config[event], r.session[event]} {
			for _, s := range list {
				out = append(out, s.entry())
			}
		}
	}
	return out
}

func (s *spec) entry() Entry {
	onFailure := s.onFailure
	if onFailure == "" {
		onFailure = "warn"
	}
	return Entry{
		Source: s.source, Event: s.event, Matcher: s.matcher, Type: s.kind, Command: s.command, Prompt: s.prompt,
		Timeout: s.timeout, OnFailure: onFailure, Index: s.index,
	}
}

// What is what the hook runs, for a listing: its command, or "prompt: " and its prompt.
func (e Entry) What() string {
	if e.Type == TypePrompt {
		return "prompt: " + e.Prompt
	}
	return e.Command
}
