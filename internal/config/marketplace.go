package config

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"
)

// MarketplaceManifest is a marketplace's list of plugins, relative to its folder.
const MarketplaceManifest = ".claude-plugin/marketplace.json"

// MarketplacePlugin is one plugin a marketplace lists: its name and where it is.
// A source that is a relative path gives the plugin's folder (Dir); a git source
// (Claude Code's "github" repo, "url" or "git" url) gives the repository to clone
// (GitURL, with Ref the branch or tag to clone, if any). A source of another kind
// is named in Problem.
type MarketplacePlugin struct {
	Name, Description, Dir, Problem string
	GitURL, Ref                     string
}

// githubRepo is a GitHub repository as Claude Code names one: owner/name.
var githubRepo = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]*/[A-Za-z0-9_.-]+$`) })

// GitHubURL is the clone URL of the GitHub repository owner/name, "" when repo is
// not of that form.
func GitHubURL(repo string) string {
	if !githubRepo().MatchString(repo) {
		return ""
	}
	return "https://github.com/" + repo + ".git"
}

// pluginSource is the object form of a marketplace plugin's source.
type pluginSource struct {
	Source string `json:"source"`
	Repo   string `json:"repo"`
	URL    string `json:"url"`
	Ref    string `json:"ref"`
	SHA    string `json:"sha"`
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
		var obj pluginSource
		switch {
		case json.Unmarshal(e.Source, &src) == nil && src != "":
			d, err := insidePlugin(root, path, "plugins."+e.Name+".source", src)
			if err != nil {
				mp.Problem = err.Error()
			} else {
				mp.Dir = d
			}
		case json.Unmarshal(e.Source, &obj) == nil && obj.SHA != "":
			mp.Problem = fmt.Sprintf("the plugin %s of the marketplace %s is pinned to a commit (sha), which gantry does not clone", e.Name, path)
		case json.Unmarshal(e.Source, &obj) == nil && obj.Source == "github" && GitHubURL(obj.Repo) != "":
			mp.GitURL, mp.Ref = GitHubURL(obj.Repo), obj.Ref
		case json.Unmarshal(e.Source, &obj) == nil && (obj.Source == "url" || obj.Source == "git") && obj.URL != "":
			mp.GitURL, mp.Ref = obj.URL, obj.Ref
		default:
			mp.Problem = fmt.Sprintf("the plugin %s of the marketplace %s has a source gantry does not read (a folder of the marketplace, or a github, url or git repository)", e.Name, path)
		}
		plugins = append(plugins, mp)
	}
	return m.Name, plugins, nil
}
