package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// PluginListFile is the list of plugin folders `gantry plugin add` keeps: the user's
// (in UserDir) or the project's (in .gantry), read besides config.yaml's plugins key.
func PluginListFile(root string, project bool) string {
	if project {
		return filepath.Join(root, ".gantry", "plugins.json")
	}
	return filepath.Join(UserDir(), "plugins.json")
}

// pluginList is the shape of a plugins.json.
type pluginList struct {
	Plugins []string `json:"plugins"`
}

// ReadPluginList reads the folders of a plugins.json; a missing file has none.
func ReadPluginList(path string) ([]string, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the plugin list: %w", err)
	}
	var l pluginList
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, &FileError{Path: path, Line: jsonLine(data, err), Msg: fmt.Sprintf("is not a plugin list: %v", err)}
	}
	return l.Plugins, nil
}

// WritePluginList writes the folders of a plugins.json, making its folder.
func WritePluginList(path string, dirs []string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("the plugin list: %w", err)
	}
	data, err := json.MarshalIndent(pluginList{Plugins: dirs}, "", "  ")
	if err != nil {
		return fmt.Errorf("the plugin list: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("the plugin list: %w", err)
	}
	return nil
}

// readPluginLists adds the folders of the user's and the project's plugins.json.
func (c *Config) readPluginLists() error {
	for _, project := range []bool{false, true} {
		path := PluginListFile(c.root, project)
		if project && path == PluginListFile(c.root, false) {
			continue // the user folder is the project's .gantry: read it once
		}
		dirs, err := ReadPluginList(path)
		if err != nil {
			return err
		}
		c.addPluginDirs(path, dirs, project)
	}
	return nil
}
