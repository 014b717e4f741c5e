package evaltool

import (
	"time"

	"github.com/gantry-dev/gantry/internal/config"
)

// Config is the eval section of the config files: the eval tool's kernels
// (docs/config.md).
type Config struct {
	// Python and Node are the kernels' interpreters ("": the project's .venv or venv,
	// else python3; node).
	Python, Node string
	// IdleTimeout is, in seconds, a cell's budget of time without a sign of life
	// (0: the default, 300).
	IdleTimeout int
}

// Section is the eval section's registration: config decodes, checks and merges it,
// and Section.Of gives its value.
var Section = config.RegisterSection[Config, *fileConfig](config.SectionDef[Config]{
	Key: "eval",
	Doc: "The eval tool's interpreters and a cell's idle budget.",
})

// fileConfig is what one file says of the section.
type fileConfig struct {
	Python      *string `yaml:"python"`
	Node        *string `yaml:"node"`
	IdleTimeout *int    `yaml:"idleTimeout"`
}

// Check validates one file's section.
func (f *fileConfig) Check(c config.Checker) {
	if w := f.IdleTimeout; w != nil && (*w < 0 || *w > 86400) {
		c.At("idleTimeout").Fail("must be between 0 (the default, 300) and 86400 (seconds), not %d", *w)
	}
}

// Merge lays one file's section over the files before it.
func (f *fileConfig) Merge(into *Config) {
	if f.Python != nil {
		into.Python = *f.Python
	}
	if f.Node != nil {
		into.Node = *f.Node
	}
	if f.IdleTimeout != nil {
		into.IdleTimeout = *f.IdleTimeout
	}
}

// HoldPrograms takes the interpreters out of an untrusted project's file.
func (f *fileConfig) HoldPrograms() []string {
	var out []string
	if f.Python != nil {
		out = append(out, "python: "+*f.Python)
	}
	if f.Node != nil {
		out = append(out, "node: "+*f.Node)
	}
	f.Python, f.Node = nil, nil
	return out
}

// Options are the eval tool's options from the section. The caller adds the
// session's Policy.
func (c Config) Options() Options {
	return Options{Python: c.Python, Node: c.Node, Idle: time.Duration(c.IdleTimeout) * time.Second}
}
