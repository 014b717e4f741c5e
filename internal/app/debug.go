package app

import (
	"maps"
	"slices"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tools/debugtool"
	"github.com/gantry-dev/gantry/internal/tools/evaltool"
)

// debugOptions are the debug tool's options from the config: its adapter rows laid
// over the built-in table.
func debugOptions(cfg *config.Config) debugtool.Options {
	var rows []dap.Spec
	for _, id := range slices.Sorted(maps.Keys(cfg.Debug.Adapters)) {
		a := cfg.Debug.Adapters[id]
		row := dap.Spec{ID: id, Markers: a.Markers, Extensions: a.Extensions}
		if len(a.Command) > 0 {
			row.Commands = [][]string{a.Command}
		}
		rows = append(rows, row)
	}
	return debugtool.Options{
		Specs:     dap.Merge(dap.Defaults(), rows),
		Python:    cfg.Debug.Python,
		Wait:      time.Duration(cfg.Debug.Wait) * time.Second,
		MaxOutput: cfg.MaxOutput,
	}
}

// evalOptions are the eval tool's options from the config.
func evalOptions(cfg *config.Config) evaltool.Options {
	return evaltool.Options{Python: cfg.Eval.Python, Node: cfg.Eval.Node,
		Idle: time.Duration(cfg.Eval.IdleTimeout) * time.Second}
}
