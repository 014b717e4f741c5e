package search

import (
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// skips are the files a walk left out because a rule denies reading them (the call's
// file guard): asked before a file is opened or listed, named in one line each at the
// end of the output.
type skips struct {
	env  tool.Env
	mu   sync.Mutex
	list []string
}

// denied reports whether the file at abs is denied, keeping its line if so. It may be
// called concurrently.
func (s *skips) denied(abs string) bool {
	err := s.env.CanRead(abs)
	if err == nil {
		return false
	}
	line := "[skipped " + abs + ": " + err.Error() + "]"
	if d, ok := tool.AsFileDenied(err); ok {
		line = d.Skipped()
	}
	s.mu.Lock()
	s.list = append(s.list, line)
	s.mu.Unlock()
	return true
}

// note is the lines of the skipped files (tool.SkippedNote), or "".
func (s *skips) note() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return tool.SkippedNote(s.list)
}

// withNote appends the skipped files' lines to out.
func (s *skips) withNote(out string) string {
	if n := s.note(); n != "" {
		return out + "\n" + n
	}
	return out
}
