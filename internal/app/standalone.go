package app

import (
	"os"
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Standalone returns the tools that need no session (files, shell, search, web,
// skills) for running one tool from the command line (`gantry tool`), with the
// environment they run in and a function that stops what they started.
func Standalone(cwd string) (*tool.Registry, tool.Env, func(), error) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, tool.Env{}, nil, err
		}
	}
	cwd, err := filepath.Abs(cwd)
	if err != nil {
		return nil, tool.Env{}, nil, err
	}
	cfg, err := config.Load(cwd)
	if err != nil {
		return nil, tool.Env{}, nil, err
	}
	reg, tasks, _ := buildTools(cfg, "")
	return reg, tool.Env{Cwd: cwd}, func() { _ = tasks.Close() }, nil
}
