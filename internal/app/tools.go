package app

import (
	"os"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/search"
	"github.com/gantry-dev/gantry/internal/tools/shell"
	"github.com/gantry-dev/gantry/internal/tools/skill"
	"github.com/gantry-dev/gantry/internal/tools/web"
)

// buildTools declares the tools whose condition holds and returns the registry with the
// session's background tasks (Close stops what they started) and the skills found.
func buildTools(cfg *config.Config, tasksDir string) (*tool.Registry, *shell.Tasks, []skill.Skill) {
	reg := tool.NewRegistry()
	tasks := shell.NewTasks(tasksDir)
	for _, t := range shell.Tools(shell.Options{Tasks: tasks, DefaultTimeout: time.Duration(cfg.Bash.Timeout) * time.Second}) {
		reg.Add(t)
	}
	if cfg.EditTools {
		for _, t := range fs.Tools(fs.Options{MaxOutput: cfg.MaxOutput}) {
			reg.Add(t)
		}
	}
	for _, t := range search.Tools(search.Options{MaxOutput: cfg.MaxOutput}) {
		reg.Add(t)
	}
	for _, t := range web.Tools(web.Options{}.WithEnv(os.Getenv)) {
		reg.Add(t)
	}
	skills, err := skill.Catalog(cfg.SkillDirs()...)
	if err != nil {
		skills = skill.Builtin()
	}
	if skill.Enabled(skills) {
		reg.Add(skill.Tool(skills, cfg.MaxOutput))
	}
	return reg, tasks, skills
}
