package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/hook"
	"github.com/gantry-dev/gantry/internal/permission"
)

// A folder's project files (.mcp.json, Claude Code's project settings, .gantry's
// config and rules) run only once the folder is trusted: by --trust, by the user's
// trustedFolders, or by the person's "yes", kept in TrustFile with a hash of each of
// those files, so that a changed file asks again. Until then New holds back their
// servers, hooks, env and allow rules (config.LoadHeld), and Start asks.

// TrustFile is the name of the file, in gantry's data folder (next to the session
// store), that keeps the folders the person trusted.
const TrustFile = "trusted-folders.json"

// TrustState is where a folder stands.
type TrustState string

// The states of a folder's trust.
const (
	TrustNone      TrustState = "nothing to trust" // no project file runs anything
	TrustTrusted   TrustState = "trusted"
	TrustUntrusted TrustState = "not trusted"
	TrustChanged   TrustState = "changed since it was trusted"
)

// FolderTrust is a folder's trust, as New found it (and gantry doctor shows it).
type FolderTrust struct {
	Folder string
	State  TrustState
	// By says what trusts it: "--trust", "trustedFolders", or the file it is kept in.
	By string
	// Changed names the files changed since the folder was trusted.
	Changed []string
	// Held is what runs once it is trusted.
	Held config.Held
	// hashes are the files' hashes now, kept with a "yes".
	hashes map[string]string
	path   string // the trust file
}

// trustRecord is one folder of the trust file.
type trustRecord struct {
	Folder string            `json:"folder"`
	Files  map[string]string `json:"files"` // a hash of each file, by its name in the folder
	When   time.Time         `json:"when"`
}

// trustPath is the trust file of a session with opts.
func trustPath(opts Options) string {
	return filepath.Join(filepath.Dir(StorePath(opts)), TrustFile)
}

// readTrust reads the trust file; a missing one is empty.
func readTrust(path string) ([]trustRecord, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the trusted folders: %w", err)
	}
	var recs []trustRecord
	if err := json.Unmarshal(data, &recs); err != nil {
		return nil, fmt.Errorf("%s is not a list of trusted folders: %w", path, err)
	}
	return recs, nil
}

// keepTrust records folder as trusted with its files' hashes, replacing an older
// record of it; the file is written whole, atomically.
func keepTrust(path, folder string, hashes map[string]string) error {
	recs, err := readTrust(path)
	if err != nil {
		return err
	}
	recs = slices.DeleteFunc(recs, func(r trustRecord) bool { return r.Folder == folder })
	recs = append(recs, trustRecord{Folder: folder, Files: hashes, When: time.Now().UTC()})
	data, err := json.MarshalIndent(recs, "", "  ")
	if err != nil {
		return err
	}
	if err := config.WriteFileAtomic(path, append(data, '\n'), 0o600); err != nil {
		return fmt.Errorf("keeping the folder's trust in %s: %w", path, err)
	}
	return nil
}

// trustOf computes the trust of the project folder of cfg, whose project parts were
// held back (config.LoadHeld) into held: trusted by the flag, by the user's
// trustedFolders, by a kept "yes" whose files have not changed, or because nothing
// is held back.
func trustOf(cfg *config.Config, held config.Held, flag bool, path string) (FolderTrust, error) {
	t := FolderTrust{Folder: cfg.Root(), Held: held, path: path}
	hashes, err := config.HashTrustFiles(t.Folder)
	if err != nil {
		return t, err
	}
	t.hashes = hashes
	switch {
	case held.Empty():
		t.State = TrustNone
		return t, nil
	case flag:
		t.State, t.By = TrustTrusted, "--trust"
		return t, nil
	case cfg.Trusts(t.Folder):
		t.State, t.By = TrustTrusted, "trustedFolders"
		return t, nil
	}
	recs, err := readTrust(path)
	if err != nil {
		return t, err
	}
	t.State = TrustUntrusted
	for _, r := range recs {
		if r.Folder != t.Folder {
			continue
		}
		if maps.Equal(r.Files, hashes) {
			t.State, t.By = TrustTrusted, path
			return t, nil
		}
		t.State = TrustChanged
		for _, f := range config.TrustFiles {
			if r.Files[f] != hashes[f] {
				t.Changed = append(t.Changed, f)
			}
		}
	}
	return t, nil
}

// Trusted reports whether the folder's project files run.
func (t FolderTrust) Trusted() bool { return t.State == TrustTrusted || t.State == TrustNone }

// heldRules takes the project's rules file apart: its deny rules always apply, its
// allow rules and allow_all are held back while the folder is not trusted.
func heldRules(root string, held *config.Held) (permission.RuleSet, error) {
	rules, err := permission.LoadRules(root, "")
	if err != nil {
		return rules, err
	}
	for _, r := range rules.Allow {
		held.Allow = append(held.Allow, fmt.Sprintf("%s (%s)", r.String(), r.Source))
	}
	if rules.AllowAll {
		held.AllowAll = filepath.Join(root, permission.ProjectRulesFile)
	}
	return permission.RuleSet{Deny: rules.Deny}, nil
}

// untrustedNotice is the one line said when a folder's files were not run.
func untrustedNotice(t FolderTrust) string {
	why := "is not trusted"
	if t.State == TrustChanged {
		why = "changed since it was trusted (" + strings.Join(t.Changed, ", ") + ")"
	}
	return fmt.Sprintf("The folder %s %s, so its project MCP servers, hooks, env and .gantry config were not run; run gantry with --trust, or add it to trustedFolders in %s, to run them.",
		t.Folder, why, filepath.Join(config.UserDir(), "config.yaml"))
}

// request is the question of an untrusted folder.
func (t FolderTrust) request() face.TrustRequest {
	allow := slices.Clone(t.Held.Allow)
	if t.Held.AllowAll != "" {
		allow = append(allow, "allow_all ("+t.Held.AllowAll+")")
	}
	if t.Held.Mode != "" {
		allow = append(allow, "defaultMode "+t.Held.Mode)
	}
	return face.TrustRequest{Folder: t.Folder, Changed: t.Changed, Servers: t.Held.Servers, Hooks: t.Held.Hooks, Env: t.Held.Env, Allow: allow, Programs: t.Held.Programs}
}

// settleTrust asks a folder not yet trusted, at Start, whether its project files may
// run; a "yes" is kept and the held parts are applied to the session before its MCP
// servers connect and its SessionStart hooks run. It returns the notices to say.
func (a *App) settleTrust(ctx context.Context, asker face.Asker) []string {
	t := a.FolderTrust()
	if t.Trusted() {
		return nil
	}
	if a.opts.ToolServer || face.Nobody(asker) {
		return []string{untrustedNotice(t)}
	}
	yes, err := asker.TrustFolder(ctx, t.request())
	switch {
	case errors.Is(err, face.ErrNoHuman):
		return []string{untrustedNotice(t)}
	case err != nil:
		return []string{"The folder's trust could not be asked: " + err.Error() + "; " + untrustedNotice(t)}
	case !yes:
		return []string{untrustedNotice(t)}
	}
	// What was shown is what runs: a file changed while the question was open is
	// asked again next time.
	if now, err := config.HashTrustFiles(t.Folder); err != nil || !maps.Equal(now, t.hashes) {
		return []string{fmt.Sprintf("The folder %s changed while its trust was asked, so its project files were not run; they are asked again next time.", t.Folder)}
	}
	var notices []string
	by := t.path
	if err := keepTrust(t.path, t.Folder, t.hashes); err != nil {
		notices, by = append(notices, err.Error()+"; the folder is trusted for this session only."), "this session's answer"
	}
	if err := a.applyTrusted(); err != nil {
		return append(notices, "The folder's project files could not be applied: "+err.Error())
	}
	if t.Held.Mode != "" {
		notices = append(notices, "The project's Claude Code defaultMode "+t.Held.Mode+" is the starting mode from the next session; this one keeps its mode.")
	}
	if len(t.Held.Programs) > 0 {
		notices = append(notices, "The language servers, debug adapters and interpreters of the project's .gantry/config.yaml are used from the next session; this one keeps gantry's own.")
	}
	a.mu.Lock()
	a.trust.State, a.trust.By = TrustTrusted, by
	a.mu.Unlock()
	return notices
}

// trustInTurn asks the folder's trust at the first prompt of a face that asks only
// within a turn; a yes connects the servers it adds and runs the project's
// SessionStart hooks, whose context it returns for the system prompt.
func (a *App) trustInTurn(ctx context.Context) string {
	oldServers, oldHooks := maps.Clone(a.cfg.MCPServers), a.cfg.Hooks
	notices := a.settleTrust(ctx, &a.asker)
	var context string
	if a.FolderTrust().State == TrustTrusted {
		added := *a.cfg
		added.MCPServers = map[string]config.MCPServer{}
		for name, s := range a.cfg.MCPServers {
			if _, ok := oldServers[name]; !ok {
				added.MCPServers[name] = s
			}
		}
		notices = append(notices, connectMCP(ctx, a.pool, a.reg, mcpEntries(&added, nil, a.cfg.Lookup), a.opts.Cwd, []string{a.cfg.Root()}, &a.mcp, a.policy)...)
		if start := newHooks(a.cfg.Hooks, oldHooks)[hook.SessionStart]; len(start) > 0 {
			o := a.hooks.With(map[string][]config.HookMatcher{hook.SessionStart: start}).Run(ctx, hook.SessionStart, "startup",
				map[string]any{"source": "startup", "model": a.agent.Config.Model})
			a.env.add(o.Env)
			for _, w := range o.Warnings {
				notices = append(notices, "SessionStart hook: "+w)
			}
			if o.AdditionalContext != "" {
				context = "\n<session-start-hooks>\n" + o.AdditionalContext + "\n</session-start-hooks>\n"
			}
		}
	}
	for _, n := range notices {
		a.emit(face.Notice{Text: n})
	}
	return context
}

// newHooks are the matchers of now that were not in before, by event.
func newHooks(now, before map[string][]config.HookMatcher) map[string][]config.HookMatcher {
	out := map[string][]config.HookMatcher{}
	for event, ms := range now {
		old := slices.Clone(before[event])
		for _, m := range ms {
			if i := slices.IndexFunc(old, func(o config.HookMatcher) bool { return reflect.DeepEqual(o, m) }); i >= 0 {
				old = slices.Delete(old, i, i+1)
				continue
			}
			out[event] = append(out[event], m)
		}
	}
	return out
}

// applyTrusted gives the session what a trusted folder's files add: the MCP servers,
// hooks, env and allow rules that New held back.
func (a *App) applyTrusted() error {
	full, err := config.Load(a.opts.Cwd)
	if err != nil {
		return err
	}
	rules, err := permission.LoadRules(full.Root(), "")
	if err != nil {
		return err
	}
	allow := rules.Allow
	for i, s := range full.Permissions.Allow {
		if slices.Contains(a.cfg.Permissions.Allow, s) {
			continue // the user's, in force already
		}
		r, err := permission.ParseRuleFrom(s, full.Permissions.AllowFrom(i))
		if err != nil {
			return err
		}
		allow = append(allow, r)
	}
	a.gate.AllowRules(allow, rules.AllowAll || full.Permissions.AllowAll)
	a.cfg.MCPServers, a.cfg.Hooks = full.MCPServers, full.Hooks
	a.cfg.SetPlugins(full.Plugins()) // the project's plugins: their commands and agents
	a.hooks.SetConfig(full.Hooks)
	// The session's environment (its policy's Env reads it): nothing is set in
	// gantry's own process.
	a.cfg.Claude.Env = full.Claude.Env
	a.reloadAgents()     // the project's agent definitions
	a.addTrustedSkills() // the project's plugins' skills
	return nil
}

// FolderTrust returns the trust of the session's folder.
func (a *App) FolderTrust() FolderTrust {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.trust
}

// folderTrust computes the trust of the session's folder from a.cfg, loaded with the
// project's parts held back, and loads the config whole when the folder is trusted.
func (a *App) folderTrust(path string) error {
	held := a.cfg.Held()
	if _, err := heldRules(a.cfg.Root(), &held); err != nil {
		return err
	}
	t, err := trustOf(a.cfg, held, a.opts.Trust, path)
	if err != nil {
		return err
	}
	a.trust = t
	if t.Trusted() && !held.Empty() {
		a.cfg, err = config.Load(a.opts.Cwd)
	}
	return err
}

// doctorTrust is the trust of the folder of cwd, as a session there would find it.
func doctorTrust(cwd string) (FolderTrust, error) {
	cfg, err := config.LoadHeld(cwd)
	if err != nil {
		return FolderTrust{}, err
	}
	held := cfg.Held()
	if _, err := heldRules(cfg.Root(), &held); err != nil {
		return FolderTrust{}, err
	}
	return trustOf(cfg, held, false, trustPath(Options{}))
}

// describe is gantry doctor's line of the folder's trust.
func (t FolderTrust) describe() string {
	var parts []string
	for _, g := range []struct {
		n    int
		what string
	}{{len(t.Held.Servers), "MCP server(s)"}, {len(t.Held.Hooks), "hook(s)"}, {len(t.Held.Env), "env variable(s)"}, {len(t.Held.Allow), "allow rule(s)"}, {len(t.Held.Programs), "program(s)"}} {
		if g.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", g.n, g.what))
		}
	}
	if t.Held.AllowAll != "" {
		parts = append(parts, "allow_all")
	}
	what := strings.Join(parts, ", ")
	switch t.State {
	case TrustNone:
		return "nothing to trust: no project file here runs anything"
	case TrustTrusted:
		return fmt.Sprintf("trusted (%s): %s run", t.By, what)
	case TrustChanged:
		return fmt.Sprintf("changed since it was trusted (%s): %s held back until asked again (or --trust)", strings.Join(t.Changed, ", "), what)
	}
	return fmt.Sprintf("not trusted: %s held back until a session asks (or --trust, or trustedFolders)", what)
}

// rekeepTrust keeps the hashes of the folder's files again after gantry itself
// changed one (a grant saved in the project's rules file), when the folder is trusted
// by a kept yes: the person's own answer does not make the folder "changed".
func (a *App) rekeepTrust() error {
	t := a.FolderTrust()
	if t.State != TrustTrusted || t.By != t.path {
		return nil
	}
	hashes, err := config.HashTrustFiles(t.Folder)
	if err != nil {
		return err
	}
	return keepTrust(t.path, t.Folder, hashes)
}
