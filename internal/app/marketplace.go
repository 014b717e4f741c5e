package app

// `gantry plugin marketplace add|list|remove` and `gantry plugin add
// name@marketplace` (docs/plugins.md): a marketplace is a folder with
// .claude-plugin/marketplace.json, recorded by its path, or a git repository cloned
// into config.MarketplacesDir; gantry's marketplaces.json records both. A plugin of
// a marketplace is its folder there, or a git repository it names, cloned into
// PluginsDir/<name>. Nothing is fetched when a session loads.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/config"
)

// marketplaceRef splits src of the form name@marketplace (not a git URL, not a
// folder that exists).
func marketplaceRef(src string) (name, market string, ok bool) {
	if isGitURL(src) {
		return "", "", false
	}
	if _, err := os.Stat(expandTilde(src)); err == nil {
		return "", "", false
	}
	name, market, ok = strings.Cut(src, "@")
	return name, market, ok && config.ValidPluginName(name) && config.ValidPluginName(market)
}

// marketplacePlugin returns the folder of the plugin name of the known marketplace
// market: its folder in the marketplace, or its git repository cloned into
// PluginsDir/<name> (a clone there already is used as it is).
func marketplacePlugin(ctx context.Context, cfg *config.Config, name, market string) (string, error) {
	m, ok := cfg.Marketplace(market)
	if !ok {
		return "", fmt.Errorf("gantry knows no marketplace %s: add it with gantry plugin marketplace add PATH|GIT-URL", market)
	}
	if m.Dir == "" {
		return "", fmt.Errorf("the marketplace %s is not fetched: run gantry plugin marketplace add %s", market, m.Source)
	}
	_, list, err := config.ReadMarketplace(m.Dir)
	if err != nil {
		return "", fmt.Errorf("the marketplace %s: %w", market, err)
	}
	i := slices.IndexFunc(list, func(p config.MarketplacePlugin) bool { return p.Name == name })
	switch {
	case i < 0:
		return "", fmt.Errorf("the marketplace %s (%s) has no plugin %s", market, m.Dir, name)
	case list[i].Problem != "":
		return "", fmt.Errorf("%s", list[i].Problem)
	case list[i].Dir != "":
		return list[i].Dir, nil
	}
	dest := filepath.Join(PluginsDir(), name)
	if fi, err := os.Stat(dest); err == nil && fi.IsDir() {
		return dest, nil
	}
	if err := gitClone(ctx, cfg, list[i].GitURL, list[i].Ref, dest, "plugin add: git clone of a marketplace's plugin"); err != nil {
		return "", err
	}
	return dest, nil
}

// AddMarketplace records the marketplace src: a folder (recorded by its path), a
// git URL or GitHub's owner/name (cloned into config.MarketplacesDir), or the name
// of a git marketplace the Claude Code settings name and nobody fetched (Claude
// Code's own, claude-plugins-official, included). It is
// named by the settings' name for it, else by its marketplace.json.
func AddMarketplace(ctx context.Context, cwd, src string) (config.KnownMarketplace, error) {
	cfg, err := config.LoadHeld(cwd)
	if err != nil {
		return config.KnownMarketplace{}, err
	}
	records, err := config.ReadMarketplaceList()
	if err != nil {
		return config.KnownMarketplace{}, err
	}
	var url, name string
	known := cfg.Marketplaces()
	if m, ok := cfg.Marketplace(src); ok && m.Dir == "" {
		url, name = m.Source, m.Name
	} else if _, ok := cfg.Marketplace(src); !ok && src == config.OfficialMarketplace {
		url, name = config.Official().Source, config.OfficialMarketplace
	} else if fi, err := os.Stat(expandTilde(src)); err == nil && fi.IsDir() && !isGitURL(src) {
		return addLocalMarketplace(records, src)
	} else if isGitURL(src) {
		url = src
	} else if u := config.GitHubURL(src); u != "" {
		url = u
	} else {
		return config.KnownMarketplace{}, fmt.Errorf("%s is neither a folder, a git URL, a GitHub owner/name nor a marketplace the Claude Code settings name", src)
	}
	if name == "" {
		// A git marketplace of the settings, added by its URL, keeps their name.
		if i := slices.IndexFunc(known, func(m config.KnownMarketplace) bool { return m.Source == url && m.Dir == "" }); i >= 0 {
			name = known[i].Name
		}
	}
	base := name
	if base == "" {
		base = strings.TrimSuffix(filepath.Base(strings.TrimRight(url, "/")), ".git")
	}
	if !config.ValidPluginName(base) {
		return config.KnownMarketplace{}, fmt.Errorf("no folder name can be made from the git URL %s", url)
	}
	dest := filepath.Join(config.MarketplacesDir(), base)
	if err := gitClone(ctx, cfg, url, "", dest, "plugin marketplace add: git clone of a marketplace"); err != nil {
		return config.KnownMarketplace{}, err
	}
	mname, _, err := config.ReadMarketplace(dest)
	if err == nil && name == "" {
		name = mname
		if !config.ValidPluginName(name) {
			err = fmt.Errorf("its marketplace.json names it %q, not one word of letters, digits, dots, dashes and underscores", name)
		}
	}
	if err == nil && name != base {
		final := filepath.Join(config.MarketplacesDir(), name)
		if _, serr := os.Stat(final); serr == nil {
			err = fmt.Errorf("%s exists already", final)
		} else if err = os.Rename(dest, final); err == nil {
			dest = final
		}
	}
	if err == nil {
		err = recordedAlready(records, name)
	}
	if err != nil {
		if rerr := os.RemoveAll(dest); rerr != nil {
			return config.KnownMarketplace{}, fmt.Errorf("the marketplace %s: %w (and its clone %s is left: %v)", url, err, dest, rerr)
		}
		return config.KnownMarketplace{}, fmt.Errorf("the marketplace %s: %w", url, err)
	}
	return recordMarketplace(records, config.MarketplaceRecord{Name: name, Source: url, Path: dest})
}

// addLocalMarketplace records the marketplace folder src by its path.
func addLocalMarketplace(records []config.MarketplaceRecord, src string) (config.KnownMarketplace, error) {
	dir, err := filepath.Abs(expandTilde(src))
	if err != nil {
		return config.KnownMarketplace{}, fmt.Errorf("marketplace folder %s: %w", src, err)
	}
	name, _, err := config.ReadMarketplace(dir)
	if err != nil {
		return config.KnownMarketplace{}, fmt.Errorf("%s is not a marketplace gantry can read: %w", src, err)
	}
	if !config.ValidPluginName(name) {
		return config.KnownMarketplace{}, fmt.Errorf("the marketplace.json of %s names it %q, not one word of letters, digits, dots, dashes and underscores", src, name)
	}
	if err := recordedAlready(records, name); err != nil {
		return config.KnownMarketplace{}, err
	}
	return recordMarketplace(records, config.MarketplaceRecord{Name: name, Source: dir, Path: dir})
}

// recordedAlready is an error when gantry's list has a marketplace named name.
func recordedAlready(records []config.MarketplaceRecord, name string) error {
	if slices.ContainsFunc(records, func(r config.MarketplaceRecord) bool { return r.Name == name }) {
		return fmt.Errorf("a marketplace named %s is added already: gantry plugin marketplace remove %s first", name, name)
	}
	return nil
}

// recordMarketplace adds r to gantry's marketplaces.json.
func recordMarketplace(records []config.MarketplaceRecord, r config.MarketplaceRecord) (config.KnownMarketplace, error) {
	if err := config.WriteMarketplaceList(append(records, r)); err != nil {
		return config.KnownMarketplace{}, err
	}
	return config.KnownMarketplace{Name: r.Name, Dir: r.Path, Source: r.Source, From: config.MarketplaceListFile()}, nil
}

// RemoveMarketplace takes the marketplace name out of gantry's marketplaces.json
// and deletes its clone; it returns its folder. The plugins cloned from it stay
// (those recorded inside the clone no longer load, and doctor says so).
func RemoveMarketplace(name string) (string, error) {
	records, err := config.ReadMarketplaceList()
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(records, func(r config.MarketplaceRecord) bool { return r.Name == name })
	if i < 0 {
		return "", fmt.Errorf("no marketplace %s is recorded in %s", name, config.MarketplaceListFile())
	}
	dir := records[i].Path
	if err := config.WriteMarketplaceList(slices.Delete(records, i, i+1)); err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(config.MarketplacesDir(), dir); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		if err := os.RemoveAll(dir); err != nil {
			return dir, fmt.Errorf("removing the cloned marketplace %s: %w", dir, err)
		}
	}
	return dir, nil
}

// ListMarketplaces are the lines of `gantry plugin marketplace list` for cwd.
func ListMarketplaces(cwd string) ([]string, error) {
	cfg, err := config.Load(cwd)
	if err != nil {
		return nil, err
	}
	ms := cfg.Marketplaces()
	if len(ms) == 0 {
		return []string{"No marketplaces are known (docs/plugins.md)."}, nil
	}
	var out []string
	for _, r := range marketplaceRows(cfg) {
		out = append(out, r.Value)
	}
	return out, nil
}

// marketplaceRows say each known marketplace with its folder, its plugins and the
// file naming it; one not fetched is a problem, with the command that fetches it.
func marketplaceRows(cfg *config.Config) []DoctorRow {
	var rows []DoctorRow
	for _, m := range cfg.Marketplaces() {
		if m.Dir == "" {
			rows = append(rows, DoctorRow{Value: fmt.Sprintf("marketplace %s (%s): not fetched: run gantry plugin marketplace add %s", m.Name, m.From, m.Source), Problem: true})
			continue
		}
		_, list, err := config.ReadMarketplace(m.Dir)
		if err != nil {
			rows = append(rows, DoctorRow{Value: fmt.Sprintf("marketplace %s (%s): %s: %v", m.Name, m.From, m.Dir, err), Problem: true})
			continue
		}
		names := make([]string, 0, len(list))
		for _, p := range list {
			names = append(names, p.Name)
		}
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("marketplace %s (%s): %s; %d plugin(s): %s", m.Name, m.From, m.Dir, len(list), strings.Join(names, ", "))})
	}
	return rows
}
