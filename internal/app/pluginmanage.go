package app

// `gantry plugin add|list|remove` (docs/plugins.md): a plugin is recorded in the
// user's plugins.json (or, with --project, the project's); one given as a git URL is
// cloned first into the user's plugins folder, with git run through the one door
// (contain.Policy, judged by the user's deny rules) like every other process.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
)

// PluginsDir is the folder git plugins are cloned into.
func PluginsDir() string { return config.PluginsDir() }

// isGitURL says whether src names a git repository rather than a folder.
func isGitURL(src string) bool {
	return strings.Contains(src, "://") || strings.HasPrefix(src, "git@") || strings.HasSuffix(src, ".git")
}

// AddPlugin records the plugin at src (a folder, or a git URL cloned first) for the
// user, or for the project of cwd when project, and returns it as read.
func AddPlugin(ctx context.Context, cwd, src string, project bool) (config.Plugin, error) {
	cfg, err := config.LoadHeld(cwd)
	if err != nil {
		return config.Plugin{}, err
	}
	dir := src
	if name, market, ok := marketplaceRef(src); ok {
		if dir, err = marketplacePlugin(ctx, cfg, name, market); err != nil {
			return config.Plugin{}, err
		}
	} else if isGitURL(src) {
		if dir, err = clonePlugin(ctx, cfg, cwd, src); err != nil {
			return config.Plugin{}, err
		}
	} else if dir, err = filepath.Abs(expandTilde(src)); err != nil {
		return config.Plugin{}, err
	}
	p, err := config.ReadPlugin(dir)
	if err != nil {
		return p, fmt.Errorf("%s is not a plugin gantry can read: %w", src, err)
	}
	list := config.PluginListFile(cfg.Root(), project)
	dirs, err := config.ReadPluginList(list)
	if err != nil {
		return p, err
	}
	if !slices.Contains(dirs, p.Root) {
		if err := config.WritePluginList(list, append(dirs, p.Root)); err != nil {
			return p, err
		}
	}
	return p, nil
}

// expandTilde expands a leading ~/ of a folder given on the command line.
func expandTilde(p string) string {
	if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(p, "~/") {
		return filepath.Join(home, p[2:])
	}
	return p
}

// clonePlugin clones the repository url into PluginsDir, under its last path
// element, and returns the folder; a folder of that name there is an error.
func clonePlugin(ctx context.Context, cfg *config.Config, cwd, url string) (string, error) {
	name := strings.TrimSuffix(filepath.Base(strings.TrimRight(url, "/")), ".git")
	if name == "" || name == "." || name == ".." || strings.ContainsAny(name, ":") {
		return "", fmt.Errorf("no folder name can be made from the git URL %s", url)
	}
	dest := filepath.Join(PluginsDir(), name)
	if err := gitClone(ctx, cfg, url, "", dest, "plugin add: git clone of a plugin"); err != nil {
		return "", err
	}
	return dest, nil
}

// gitClone clones the repository url (at the branch or tag ref, if any) into the
// folder dest, which must not exist: --depth 1, with git's hooks and ext:: transport
// off, run through the one door with the user's deny rules judging it (as in a
// session), writing only in dest's parent folder.
func gitClone(ctx context.Context, cfg *config.Config, url, ref, dest, why string) error {
	parent := filepath.Dir(dest)
	if _, err := os.Stat(dest); err == nil {
		return fmt.Errorf("%s exists already: remove it, or add it as a folder", dest)
	}
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return fmt.Errorf("making the folder %s: %w", parent, err)
	}
	gate, err := newGate(cfg, Options{PermissionMode: string(permission.ModeYolo)}, false)
	if err != nil {
		return err
	}
	pol := &contain.Policy{Judge: execJudge(gate), Dir: parent, ID: "plugin-add"}
	argv := []string{"git", "-c", "core.hooksPath=/dev/null", "-c", "protocol.ext.allow=never", "clone", "--depth", "1"}
	if ref != "" {
		argv = append(argv, "--branch", ref)
	}
	argv = append(argv, "--", url, dest)
	out, err := pol.OutputContext(ctx, contain.Spec{Argv: argv, Widen: &contain.Widening{Why: why, Network: true, Writable: []string{parent}}})
	if err != nil {
		said := strings.TrimSpace(string(out))
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) && len(ee.Stderr) > 0 {
			said = strings.TrimSpace(string(ee.Stderr)) // git says why on its standard error
		}
		if rerr := os.RemoveAll(dest); rerr != nil {
			return fmt.Errorf("git clone %s: %w: %s (and the partial clone %s is left: %v)", url, err, said, dest, rerr)
		}
		return fmt.Errorf("git clone %s: %w: %s", url, err, said)
	}
	return nil
}

// RemovePlugin takes the plugin named name (or recorded as that folder) out of the
// user's list, or the project's when project; a plugin gantry cloned is deleted.
func RemovePlugin(cwd, name string, project bool) (string, error) {
	root := config.ProjectRoot(cwd)
	list := config.PluginListFile(root, project)
	dirs, err := config.ReadPluginList(list)
	if err != nil {
		return "", err
	}
	i := slices.IndexFunc(dirs, func(d string) bool {
		p, err := config.ReadPlugin(d)
		return d == name || (err == nil && p.Name == name) || (err != nil && filepath.Base(d) == name)
	})
	if i < 0 {
		return "", fmt.Errorf("no plugin %s is recorded in %s", name, list)
	}
	dir := dirs[i]
	if err := config.WritePluginList(list, slices.Delete(dirs, i, i+1)); err != nil {
		return "", err
	}
	if rel, err := filepath.Rel(PluginsDir(), dir); err == nil && !strings.HasPrefix(rel, "..") && rel != "." {
		if err := os.RemoveAll(dir); err != nil {
			return dir, fmt.Errorf("removing the cloned plugin %s: %w", dir, err)
		}
	}
	return dir, nil
}

// ListPlugins are the lines of `gantry plugin list` for cwd: every plugin enabled
// there, the project's included (a session offers those only in a trusted folder).
func ListPlugins(cwd string) ([]string, error) {
	cfg, err := config.Load(cwd)
	if err != nil {
		return nil, err
	}
	return PluginLines(cfg), nil
}
