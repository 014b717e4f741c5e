package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/exepages"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/session"
)

// DoctorRow is one line of `gantry doctor`: what, and what is in force here.
type DoctorRow struct {
	Name, Value string
	// Problem marks a row that is below what gantry can do (a fallback, nothing found).
	Problem bool
}

// Doctor says what is in force for a session in cwd: the sandbox, the exec supervisor,
// the PID namespaces, how gantry's own pages are mapped, where the config and store
// are, the providers with keys and base URLs, and the language servers and debug
// adapters found on PATH; then what was read from gantry's, Claude Code's and Codex's
// files (doctorread.go), each with its file, and what was ignored and why.
func Doctor(cwd string) ([]DoctorRow, error) {
	if cwd == "" {
		var err error
		if cwd, err = os.Getwd(); err != nil {
			return nil, err
		}
	}
	cfg, err := config.Load(cwd)
	if err != nil {
		return nil, err
	}
	var rows []DoctorRow
	add := func(name, value string, problem bool) { rows = append(rows, DoctorRow{name, value, problem}) }

	b, why := contain.SandboxStatus()
	sb := b.String()
	if why != "" {
		sb += " — " + why
	}
	switch {
	case cfg.Sandbox.Enabled != nil && *cfg.Sandbox.Enabled:
		sb += "; on (sandbox.enabled: true)"
	case cfg.Sandbox.Enabled != nil:
		sb += "; off (sandbox.enabled: false)"
	default:
		sb += "; on in yolo mode, off in the others (sandbox.enabled unset)"
	}
	if !cfg.Sandbox.Network {
		sb += "; network: loopback only"
	}
	add("sandbox", sb, b != contain.BackendBubblewrap)
	for _, s := range cfg.Sandbox.Ignored {
		add("", "ignored: "+s, true)
	}

	gate, err := newGate(cfg, Options{PermissionMode: string(permission.ModeYolo)}, true)
	if err != nil {
		return nil, err
	}
	// What the sandbox cannot guarantee here, for the deny rules in force (the tools'
	// families say which rules are read rules). The tools are a session's, so that
	// the agent definitions' tools are checked as a session checks them.
	// A session's tools, background tasks' included (their folder is made on first
	// use only, which never comes here).
	pool := resource.NewPool(nil) // owns the toolsets built here; nothing of them starts
	reg, _, _, _ := buildTools(deps{cfg: cfg, getenv: os.Getenv, pool: pool, session: true, asker: face.NoHuman{}, tasksDir: filepath.Join(os.TempDir(), "gantry-doctor-tasks")})
	gate.SetFileTools(fileTools(reg))
	for _, s := range newSandboxer(cfg, nil, gate).lost() {
		add("", s, true)
	}
	ok, swhy := contain.Supervisor()
	_, deny := gate.Rules()
	bashRules := 0
	for _, r := range deny {
		if r.MatchesTool("bash") {
			bashRules++
		}
	}
	sup := "available (seccomp user notification)"
	if !ok {
		sup = "not available: " + swhy + " — deny rules on bash are checked by the parser only"
	}
	if bashRules > 0 {
		sup += fmt.Sprintf("; in force: %d deny rule(s) name bash", bashRules)
	} else {
		sup += "; idle: no deny rule names bash"
	}
	add("exec supervisor", sup, !ok)

	m, mwhy := contain.Status()
	ns := m.String()
	if mwhy != "" {
		ns += " — " + mwhy
	}
	add("PID namespaces", ns, m == contain.ModeGroup)
	if exepages.Registered() {
		add("page mapping", "each page of gantry's executable mapped as it is read (a userfaultfd turns the kernel's fault-around off)", false)
	} else {
		add("page mapping", "the kernel's fault-around (up to 64 KB of gantry's executable mapped around each page read): "+exepages.Err().Error(), false)
	}

	add("user config", describeDir(config.UserDir(), "config.yaml", "permissions.yaml", "credentials.yaml"), false)
	add("project", cfg.Root()+"  "+describeDir(filepath.Join(cfg.Root(), ".gantry"), "config.yaml", "permissions.yaml"), false)
	trust, err := doctorTrust(cwd)
	if err != nil {
		add("folder trust", "unknown: "+err.Error(), true)
	} else {
		add("folder trust", trust.describe(), trust.State == TrustChanged)
	}
	trustKnown := err == nil
	projectCommands := trustKnown && trust.Trusted()
	add("session store", session.DefaultPath(), false)

	creds, _ := config.LoadCredentials()
	var keys []string
	for _, p := range []struct{ name, env, stored string }{
		{"anthropic", "ANTHROPIC_API_KEY", creds.AnthropicAPIKey},
		{"openai", "OPENAI_API_KEY", creds.OpenAIAPIKey},
	} {
		switch {
		case os.Getenv(p.env) != "":
			keys = append(keys, p.name+" ("+p.env+")")
		case p.stored != "":
			keys = append(keys, p.name+" (credentials.yaml)")
		}
	}
	bases := baseURLRows(cfg)
	switch {
	case len(keys) > 0:
		add("providers", "keys for "+strings.Join(keys, ", "), false)
	case len(bases) > 0:
		add("providers", "no key found; a base URL is set (a local server needs none)", false)
	default:
		add("providers", "no key found (ANTHROPIC_API_KEY, OPENAI_API_KEY, or gantry's setup)", true)
	}
	for _, b := range bases {
		add("", b, false)
	}
	for _, s := range cfg.Providers.Ignored {
		add("", "ignored: "+s, true)
	}
	rows = append(rows, lspRows(cfg, cwd)...)
	rows = append(rows, toolRows(cfg, cwd)...) // eval's interpreters, computer's display, debug adapters
	rows = append(rows, claudeRows(cfg)...)
	rows = append(rows, commandRows(cfg, projectCommands)...)
	rows = append(rows, agentRows(cfg, projectCommands, reg)...)
	if err := pool.Close(context.Background()); err != nil {
		return nil, err
	}
	rows = append(rows, skillRows(cfg)...)
	rows = append(rows, pluginRows(cfg)...)
	rows = append(rows, memoryRows(cwd)...)
	rows = append(rows, outputStyleRows(cfg, cwd)...)
	rows = append(rows, hookRows(cfg)...)
	rows = append(rows, ruleRows(gate)...)
	rows = append(rows, mcpRows(cfg)...)
	if trustKnown && !projectCommands {
		add("", "the project's hooks, allow rules and MCP servers above run only once the folder is trusted (folder trust)", true)
	}
	return rows, nil
}

// baseURLRows says where the requests of each provider with a base URL go, and what
// said so; providers sharing one (OPENAI_BASE_URL serves openai and openai-chat) share
// a row.
func baseURLRows(cfg *config.Config) []string {
	var rows []string
	at := map[string]int{}
	var names [][]string
	for _, name := range Providers {
		url, from := baseURLFor(name, cfg)
		if url == "" {
			continue
		}
		key := url + " (" + from + ")"
		i, ok := at[key]
		if !ok {
			i, at[key] = len(rows), len(rows)
			rows, names = append(rows, key), append(names, nil)
		}
		names[i] = append(names[i], name)
	}
	for i := range rows {
		rows[i] = "base URL of " + strings.Join(names[i], ", ") + ": " + rows[i]
	}
	return rows
}

// describeDir names dir and which of files are in it.
func describeDir(dir string, files ...string) string {
	var have []string
	for _, f := range files {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			have = append(have, f)
		}
	}
	if len(have) == 0 {
		return dir + " (no files)"
	}
	return dir + " (" + strings.Join(have, ", ") + ")"
}

// claudeRows say what was taken from each Claude Code settings file.
func claudeRows(cfg *config.Config) []DoctorRow {
	var rows []DoctorRow
	for _, f := range cfg.Claude.Files {
		took := fmt.Sprintf("%d hook(s), %d allow / %d deny / %d ask rule(s)", f.Hooks, f.Allow, f.Deny, f.Ask)
		if len(f.Env) > 0 {
			took += ", env " + strings.Join(f.Env, " ")
		}
		rows = append(rows, DoctorRow{"claude settings", f.Path + ": " + took, false})
		for _, s := range f.Skipped {
			rows = append(rows, DoctorRow{"", s, true})
		}
	}
	return rows
}

// mcpRows say which MCP servers the session would start, and where each is defined
// (gantry's files, .mcp.json, ~/.claude.json, Codex's config.toml, opencode's and
// Crush's files), then what was read and not used, and why; none when there are none.
// Each server is labelled by what it connects with, and one the session would not
// start (a ${VAR} not set, an entry without a command or url) is the sentence the
// session gives.
func mcpRows(cfg *config.Config) []DoctorRow {
	var rows []DoctorRow
	for _, e := range mcpEntries(cfg, nil, cfg.Lookup) {
		if e.problem != "" {
			rows = append(rows, DoctorRow{"mcp server", "not started: " + e.problem, true})
			continue
		}
		rows = append(rows, DoctorRow{"mcp server", fmt.Sprintf("%s (%s) from %s", e.status.Name, e.status.Transport, e.status.From), false})
	}
	// What the files gave that is not started: a file gantry cannot read, a server
	// another tool's file turns off or a file that wins replaces.
	for _, p := range cfg.MCPProblems {
		rows = append(rows, DoctorRow{"mcp server", "ignored: " + p, true})
	}
	for _, s := range cfg.MCPSkipped {
		rows = append(rows, DoctorRow{"mcp server", "not used: " + s, false})
	}
	return rows
}
