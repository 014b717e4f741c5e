package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// MarketplaceManifest is a marketplace's list of plugins, relative to its folder.
const MarketplaceManifest = ".claude-plugin/marketplace.json"

// MarketplacePlugin is one plugin a local marketplace lists: its name and, for a
// source that is a relative path, the plugin's folder. A source of another kind (a
// git repository, GitHub) is named in Problem: gantry reads only local ones.
type MarketplacePlugin struct {
	Name, Description, Dir, Problem string
}

// ReadMarketplace reads the marketplace.json of the marketplace folder dir and
// returns its name and plugins, in the file's order.
func ReadMarketplace(dir string) (name string, plugins []MarketplacePlugin, err error) {
	root, err := filepath.Abs(dir)
	if err != nil {
		return "", nil, fmt.Errorf("marketplace folder %s: %w", dir, err)
	}
	path := filepath.Join(root, MarketplaceManifest)
	data, err := os.ReadFile(path)
	if err != nil {
		return "", nil, fmt.Errorf("marketplace: %w", err)
	}
	var m struct {
		Name    string `json:"name"`
		Plugins []struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Source      json.RawMessage `json:"source"`
		} `json:"plugins"`
	}
	if err := json.Unmarshal(data, &m); err != nil {
		return "", nil, &FileError{Path: path, Line: jsonLine(data, err), Msg: fmt.Sprintf("is not a marketplace file: %v", err)}
	}
	for _, e := range m.Plugins {
		mp := MarketplacePlugin{Name: e.Name, Description: e.Description}
		var src string
		if json.Unmarshal(e.Source, &src) == nil && src != "" {
			d, err := insidePlugin(root, path, "plugins."+e.Name+".source", src)
			if err != nil {
				mp.Problem = err.Error()
			} else {
				mp.Dir = d
			}
		} else {
			mp.Problem = fmt.Sprintf("the plugin %s of the marketplace %s has a source that is not a folder of the marketplace (gantry reads only those)", e.Name, path)
		}
		plugins = append(plugins, mp)
	}
	return m.Name, plugins, nil
}
