package debugtool

import (
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/dap"
)

// Config is the debug section of the config files: the debug tool's adapters
// (docs/config.md).
type Config struct {
	// Python is debugpy's interpreter ("": the project's .venv or venv, then
	// python3 from PATH).
	Python string
	// Wait bounds, in seconds, how long launch, continue and the steps wait for the
	// program to stop (0: the default, 30); the call then says it still runs.
	Wait int
	// Adapters are rows of the adapter table by id: a built-in id (delve, debugpy,
	// lldb, dart) changes the keys it sets; another id adds an adapter that speaks
	// DAP on its standard streams.
	Adapters map[string]Adapter
}

// Adapter is one row of the adapter table, as the files write it.
type Adapter struct {
	// Command is the program and its arguments; unset keeps a built-in row's.
	Command []string `yaml:"command,omitempty"`
	// Markers are the files that make a folder the adapter's project.
	Markers []string `yaml:"markers,omitempty"`
	// Extensions are the program files it debugs, with their dot (".go").
	Extensions []string `yaml:"extensions,omitempty"`
}

// Section is the debug section's registration: config decodes, checks and merges
// it, and Section.Of gives its value.
var Section = config.RegisterSection[Config, *fileConfig](config.SectionDef[Config]{
	Key: "debug",
	Doc: "The debug tool's adapters, debugpy's interpreter and the wait for a stop.",
})

// fileConfig is what one file says of the section.
type fileConfig struct {
	Python   *string            `yaml:"python"`
	Wait     *int               `yaml:"wait"`
	Adapters map[string]Adapter `yaml:"adapters"`
}

// Check validates one file's section.
func (f *fileConfig) Check(c config.Checker) {
	if w := f.Wait; w != nil && (*w < 0 || *w > 600) {
		c.At("wait").Fail("must be between 0 (the default, 30) and 600 (seconds), not %d", *w)
	}
	var builtin []string
	for _, s := range dap.Defaults() {
		builtin = append(builtin, s.ID)
	}
	for id, row := range f.Adapters {
		at := c.At("adapters", id)
		if strings.TrimSpace(id) == "" {
			at.Fail("needs an id")
		}
		if len(row.Command) > 0 && strings.TrimSpace(row.Command[0]) == "" {
			at.At("command").Fail("must start with the adapter's program")
		}
		if len(row.Command) == 0 && !slices.Contains(builtin, id) {
			at.At("command").Fail("is needed: a new adapter (not one of %s) has no command of its own", strings.Join(builtin, ", "))
		}
		for i, ext := range row.Extensions {
			if !strings.HasPrefix(ext, ".") || len(ext) < 2 || strings.ContainsAny(ext, "/ ") {
				at.At("extensions").Item(i).Fail("must be a file extension with its dot, such as \".go\", not %q", ext)
			}
		}
		for i, m := range row.Markers {
			if m == "" || strings.Contains(m, "/") {
				at.At("markers").Item(i).Fail("must be a file name, such as \"go.mod\", not %q", m)
			}
		}
	}
}

// Merge lays one file's section over the files before it: a later file's row of an
// id replaces an earlier one's whole row.
func (f *fileConfig) Merge(into *Config) {
	if f.Python != nil {
		into.Python = *f.Python
	}
	if f.Wait != nil {
		into.Wait = *f.Wait
	}
	for id, row := range f.Adapters {
		if into.Adapters == nil {
			into.Adapters = map[string]Adapter{}
		}
		into.Adapters[id] = row
	}
}

// HoldPrograms takes the adapters and debugpy's interpreter out of an untrusted
// project's file.
func (f *fileConfig) HoldPrograms() []string {
	var out []string
	for _, id := range slices.Sorted(maps.Keys(f.Adapters)) {
		out = append(out, "adapters."+id+": "+strings.Join(f.Adapters[id].Command, " "))
	}
	if f.Python != nil {
		out = append(out, "python: "+*f.Python)
	}
	f.Adapters, f.Python = nil, nil
	return out
}

// Options are the debug tool's options from the section: its adapter rows laid over
// the built-in table. The caller adds the session's Policy and MaxOutput.
func (c Config) Options() Options {
	var rows []dap.Spec
	for _, id := range slices.Sorted(maps.Keys(c.Adapters)) {
		a := c.Adapters[id]
		row := dap.Spec{ID: id, Markers: a.Markers, Extensions: a.Extensions}
		if len(a.Command) > 0 {
			row.Commands = [][]string{a.Command}
		}
		rows = append(rows, row)
	}
	return Options{
		Specs:  dap.Merge(dap.Defaults(), rows),
		Python: c.Python,
		Wait:   time.Duration(c.Wait) * time.Second,
	}
}
