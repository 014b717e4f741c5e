package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// KnownMarketplace is a marketplace gantry knows of: its name, its folder (Dir, ""
// while a git marketplace is not fetched), where it comes from (Source: the folder
// or git URL it was added from) and the file that names it (From).
type KnownMarketplace struct {
	Name, Dir, Source, From string
}

// MarketplaceRecord is one marketplace of gantry's marketplaces.json, written by
// `gantry plugin marketplace add`: its name, the folder or git URL it was added
// from, and its folder (for a git one, its clone in MarketplacesDir).
type MarketplaceRecord struct {
	Name   string `json:"name"`
	Source string `json:"source"`
	Path   string `json:"path"`
}

// OfficialMarketplace is the name of Claude Code's own marketplace, which its
// settings name without declaring it (enabledPlugins "name@claude-plugins-official").
const OfficialMarketplace = "claude-plugins-official"

// Official is Claude Code's own marketplace as gantry knows it before it is fetched.
func Official() KnownMarketplace {
	return KnownMarketplace{Name: OfficialMarketplace, Source: GitHubURL("anthropics/claude-plugins-official"), From: "Claude Code's built-in marketplace"}
}

// MarketplaceListFile is gantry's list of marketplaces, in the user's folder.
func MarketplaceListFile() string { return filepath.Join(UserDir(), "marketplaces.json") }

// MarketplacesDir is the folder git marketplaces are cloned into.
func MarketplacesDir() string { return filepath.Join(UserDir(), "marketplaces") }

// PluginsDir is the folder git plugins are cloned into (a plugin of a marketplace
// whose source is a git repository is cloned to PluginsDir/<name>).
func PluginsDir() string { return filepath.Join(UserDir(), "plugins") }

// ReadMarketplaceList reads gantry's marketplaces.json; a missing file has none.
func ReadMarketplaceList() ([]MarketplaceRecord, error) {
	path := MarketplaceListFile()
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("the marketplace list: %w", err)
	}
	var l struct {
		Marketplaces []MarketplaceRecord `json:"marketplaces"`
	}
	if err := json.Unmarshal(data, &l); err != nil {
		return nil, &FileError{Path: path, Line: jsonLine(data, err), Msg: fmt.Sprintf("is not a marketplace list: %v", err)}
	}
	return l.Marketplaces, nil
}

// WriteMarketplaceList writes gantry's marketplaces.json, making its folder.
func WriteMarketplaceList(list []MarketplaceRecord) error {
	path := MarketplaceListFile()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("the marketplace list: %w", err)
	}
	data, err := json.MarshalIndent(struct {
		Marketplaces []MarketplaceRecord `json:"marketplaces"`
	}{list}, "", "  ")
	if err != nil {
		return fmt.Errorf("the marketplace list: %w", err)
	}
	if err := os.WriteFile(path, append(data, '\n'), 0o644); err != nil {
		return fmt.Errorf("the marketplace list: %w", err)
	}
	return nil
}

// Marketplaces returns the marketplaces known for the config's folder, by name:
// those of the Claude Code settings files' extraKnownMarketplaces, then gantry's
// marketplaces.json, then Claude Code's known_marketplaces.json.
func (c *Config) Marketplaces() []KnownMarketplace {
	out := make([]KnownMarketplace, 0, len(c.markets))
	for _, m := range c.markets {
		out = append(out, m)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Marketplace returns the known marketplace name.
func (c *Config) Marketplace(name string) (KnownMarketplace, bool) {
	m, ok := c.markets[name]
	return m, ok
}

// addMarket records a marketplace a file names; one known already by that name
// stays, but takes the folder of the later one if it has none (a git marketplace
// of the settings that gantry or Claude Code fetched).
func (c *Config) addMarket(m KnownMarketplace) {
	if c.markets == nil {
		c.markets = map[string]KnownMarketplace{}
	}
	old, ok := c.markets[m.Name]
	switch {
	case !ok:
		c.markets[m.Name] = m
	case old.Dir == "" && m.Dir != "":
		old.Dir = m.Dir
		c.markets[m.Name] = old
	}
}

// gantryMarketplaces reads gantry's marketplaces.json into c.markets.
func (c *Config) gantryMarketplaces() {
	list, err := ReadMarketplaceList()
	if err != nil {
		c.PluginProblems = append(c.PluginProblems, err.Error())
		return
	}
	for _, r := range list {
		c.addMarket(KnownMarketplace{Name: r.Name, Dir: filepath.Clean(r.Path), Source: r.Source, From: MarketplaceListFile()})
	}
}
