// Package config reads gantry's settings and memory files.
//
// Settings come from two YAML files, merged: the user's, config.yaml in UserDir
// ($GANTRY_CONFIG_DIR, else $XDG_CONFIG_HOME/gantry, else ~/.config/gantry), then the
// project's, .gantry/config.yaml at the project root (the nearest folder above the
// working directory that holds .git, else the working directory). The project file
// wins; flags, applied by the caller on the returned Config, win over both. Decoding is
// strict: an unknown key, a value of the wrong type or out of range is an error that
// names the file, the line and the key. A tool family's section (lsp, debug, eval)
// is declared in the family's package and registered with RegisterSection: the
// loader decodes, checks, merges and holds it back like gantry's own keys, and the
// family reads it with its Section's Of (section.go).
//
// Memory files are AGENTS.md (replaced by AGENTS.override.md) and CLAUDE.md from
// UserDir, then those and .claude/CLAUDE.md and CLAUDE.local.md from every folder from
// the project root down to the working directory, with their @path imports; see Memory.
// Those of folders below the working directory are added as the model first touches a
// file there; see Nested.
package config
