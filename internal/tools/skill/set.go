package skill

import (
	"sort"
	"sync"
)

// Set is a session's catalogue of skills, which grows when the person trusts the
// folder mid-session (the project's plugins bring theirs): read_skill finds a skill
// added after it was declared, while its description keeps the list it was declared
// with, so that the declared tools, part of the conversation's cached prefix, do not
// change; the session tells the model of the new skills in a reminder instead.
type Set struct {
	mu     sync.RWMutex
	sorted []Skill
}

// NewSet is a catalogue of skills, sorted by name.
func NewSet(skills []Skill) *Set {
	s := &Set{}
	s.Add(skills)
	return s
}

// List returns the skills, sorted by name (none for a nil Set).
func (s *Set) List() []Skill {
	if s == nil {
		return nil
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return append([]Skill(nil), s.sorted...)
}

// Find returns the skill named name.
func (s *Set) Find(name string) (Skill, bool) {
	if s == nil {
		return Skill{}, false
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	i := sort.Search(len(s.sorted), func(i int) bool { return s.sorted[i].Name >= name })
	if i < len(s.sorted) && s.sorted[i].Name == name {
		return s.sorted[i], true
	}
	return Skill{}, false
}

// Add puts in the skills of more whose names the set has not got, and returns them,
// sorted by name: a skill already there keeps its file (the first found wins, as in
// Catalog).
func (s *Set) Add(more []Skill) (added []Skill) {
	s.mu.Lock()
	defer s.mu.Unlock()
	have := make(map[string]bool, len(s.sorted))
	for _, k := range s.sorted {
		have[k.Name] = true
	}
	for _, k := range more {
		if !have[k.Name] {
			have[k.Name] = true
			added = append(added, k)
		}
	}
	s.sorted = append(s.sorted, added...)
	sort.Slice(s.sorted, func(i, j int) bool { return s.sorted[i].Name < s.sorted[j].Name })
	sort.Slice(added, func(i, j int) bool { return added[i].Name < added[j].Name })
	return added
}
