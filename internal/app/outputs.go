package app

import (
	"path/filepath"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
)

// outputsDir is the folder where a session keeps the whole text of the results its
// bound cut (tool.Fit): outputs/<session id> beside the session store, so that it
// goes with the session's data (a tool server's, in its temporary folder, at Close).
func outputsDir(opts Options, id string) string {
	return filepath.Join(filepath.Dir(StorePath(opts)), "outputs", id)
}

// StandaloneOutputs keeps the cut outputs of `gantry tool`, which has no session:
// outputs/standalone in gantry's data folder, bounded as a session's are.
func StandaloneOutputs() *tool.OutputDir {
	return tool.NewOutputDir(filepath.Join(filepath.Dir(session.DefaultPath()), "outputs", "standalone"), 0)
}

// StandaloneBound is how `gantry tool` bounds a result in cwd, as the loop does: the
// maxOutput of the folder's config, and the standalone outputs folder.
func StandaloneBound(cwd string) (int, *tool.OutputDir, error) {
	cfg, err := config.LoadHeld(cwd)
	if err != nil {
		return 0, nil, err
	}
	return tool.MaxOutputOr(cfg.MaxOutput), StandaloneOutputs(), nil
}

// keepOutputs gives the session's loop its outputs folder, and lets its reads there
// through the gate in every mode (permission.Engine.SetOwnOutputs). Subagents and
// vibe workers share the loop's Outputs and gate, so their cut results land there too.
func (a *App) keepOutputs() {
	dir := outputsDir(a.opts, a.sess.ID())
	a.agent.Outputs = tool.NewOutputDir(dir, 0)
	a.gate.SetOwnOutputs(dir)
}
