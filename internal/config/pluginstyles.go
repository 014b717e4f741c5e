package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PluginOutputStyles returns the output styles of the plugins ps, each named
// plugin:name as Claude Code shows them, in the plugins' order. A plugin's
// OutputStyles are folders of .md files or single .md files; one that cannot be
// read is an error naming it, after the others are read.
func PluginOutputStyles(ps []LoadedPlugin) ([]OutputStyle, error) {
	var styles []OutputStyle
	var errs []error
	for _, p := range ps {
		for _, path := range p.OutputStyles {
			files := []string{path}
			if isDir(path) {
				entries, err := os.ReadDir(path)
				if err != nil {
					errs = append(errs, fmt.Errorf("plugin %s output styles: %w", p.Name, err))
					continue
				}
				files = files[:0]
				for _, e := range entries {
					if !e.IsDir() && strings.HasSuffix(e.Name(), ".md") {
						files = append(files, filepath.Join(path, e.Name()))
					}
				}
			}
			for _, f := range files {
				data, err := os.ReadFile(f)
				if err != nil {
					errs = append(errs, fmt.Errorf("plugin %s output style: %w", p.Name, err))
					continue
				}
				s := parseOutputStyle(f, string(data))
				s.Name = p.Name + ":" + s.Name
				styles = append(styles, s)
			}
		}
	}
	return styles, errors.Join(errs...)
}
