package app

import (
	"sync"
)

// sessionEnv is what SessionStart hooks exported through CLAUDE_ENV_FILE, for the
// session's processes (after the env of Claude settings, see newPolicy).
type sessionEnv struct {
	mu   sync.Mutex
	vars []string
}

func (e *sessionEnv) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.vars...)
}

func (e *sessionEnv) add(vars []string) {
	e.mu.Lock()
	e.vars = append(e.vars, vars...)
	e.mu.Unlock()
}
