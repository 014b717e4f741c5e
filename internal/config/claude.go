package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// ClaudeFile is what gantry took from one Claude Code settings file.
type ClaudeFile struct {
	Path  string
	Hooks int // hook commands
	// Allow, Deny and Ask count the permission rules taken (as gantry rules).
	Allow, Deny, Ask int
	Env              []string // the names of the variables of its env
	// Skipped says what of the file gantry cannot take, one sentence each.
	Skipped []string
}

// ClaudeSettings is what the Claude Code settings files give a session: hooks (in
// Config.Hooks, marked Claude), permission rules (in Config.Permissions), env, and
// what each file gave.
type ClaudeSettings struct {
	Files []ClaudeFile
	// Env is the files' env merged (a later file wins): set for the session's
	// commands, hooks and MCP servers.
	Env map[string]string
	// NoYolo names the file whose disableBypassPermissionsMode is "disable": the yolo
	// mode (Claude Code's bypassPermissions) is refused. Empty: allowed.
	NoYolo string
	// Model is the last file's `model` (an alias such as opus or sonnet, or a model's
	// name) and ModelFile that file: the session's model when gantry's own
	// configuration and flags name none (app maps the alias for the provider).
	Model, ModelFile string
}

// ClaudeDir is Claude Code's user folder: $CLAUDE_CONFIG_DIR, else ~/.claude.
func ClaudeDir() string {
	if d := os.Getenv("CLAUDE_CONFIG_DIR"); d != "" {
		return d
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return ""
	}
	return filepath.Join(home, ".claude")
}

// claudeFiles are the Claude Code settings files of a project, in Claude's order of
// precedence, the weakest first: the user's, the project's shared, the project's local.
func claudeFiles(root string) []string {
	var out []string
	if d := ClaudeDir(); d != "" {
		out = append(out, filepath.Join(d, "settings.json"))
	}
	return append(out, filepath.Join(root, ".claude", "settings.json"), filepath.Join(root, ".claude", "settings.local.json"))
}

// claudeSettingsFile is the part of a Claude Code settings file gantry reads; the
// other keys (model, statusLine, …) are Claude Code's own and are ignored.
type claudeSettingsFile struct {
	Hooks       map[string][]claudeMatcher `json:"hooks"`
	Permissions struct {
		Allow       []string `json:"allow"`
		Deny        []string `json:"deny"`
		Ask         []string `json:"ask"`
		DefaultMode string   `json:"defaultMode"`
		// DisableBypass is "disable" to refuse bypassPermissions (gantry's yolo).
		DisableBypass string `json:"disableBypassPermissionsMode"`
	} `json:"permissions"`
	// DisableBypass at the top level, where some files put it.
	DisableBypass string            `json:"disableBypassPermissionsMode"`
	Env           map[string]string `json:"env"`
	// Model is the model sessions start on (Claude Code's `model`).
	Model string `json:"model"`
	// Claude Code's approvals of a project's .mcp.json servers, honoured in the
	// user's settings only.
	EnableAllProjectMcpServers bool     `json:"enableAllProjectMcpServers"`
	EnabledMcpjsonServers      []string `json:"enabledMcpjsonServers"`
	// DisabledMcpjsonServers are left out; when EnabledMcpjsonServers is given, the
	// servers it does not name too (mcpchoice.go), whatever the file.
	DisabledMcpjsonServers []string `json:"disabledMcpjsonServers"`
	// EnabledPlugins ("name@marketplace": true) and the local marketplaces of
	// extraKnownMarketplaces: see pluginload.go.
	EnabledPlugins         map[string]json.RawMessage   `json:"enabledPlugins"`
	ExtraKnownMarketplaces map[string]claudeMarketplace `json:"extraKnownMarketplaces"`
}

type claudeMatcher struct {
	Matcher string `json:"matcher"`
	Hooks   []struct {
		Type    string  `json:"type"`
		Command string  `json:"command"`
		Prompt  string  `json:"prompt"`
		Timeout float64 `json:"timeout"`
		// If is a permission rule a tool call must match for the hook to run.
		If string `json:"if"`
		// Async runs the hook without waiting for it; AsyncRewake too, and wakes
		// the model with what it wrote when it exits 2.
		Async       bool `json:"async"`
		AsyncRewake bool `json:"asyncRewake"`
		// RewakeMessage goes before what an asyncRewake hook wrote, for the model;
		// RewakeSummary is the line shown to the person when it wakes it.
		RewakeMessage string `json:"rewakeMessage"`
		RewakeSummary string `json:"rewakeSummary"`
		// StatusMessage is what Claude Code shows while the hook runs: gantry names
		// the hook by it.
		StatusMessage string `json:"statusMessage"`
		Once          bool   `json:"once"`
		// Shell is the interpreter of a command: gantry's is bash.
		Shell string `json:"shell"`
	} `json:"hooks"`
}

// loadClaude reads the Claude Code settings files of root into c, below gantry's own
// files (which are applied after). A file that is not there is skipped; one that is
// not valid JSON, or whose hooks or deny rules gantry cannot take, is an error naming
// it. An allow or ask rule gantry cannot express is skipped and said (Skipped).
func loadClaude(c *Config, root string) error {
	for _, path := range claudeFiles(root) {
		data, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return &FileError{Path: path, Msg: err.Error()}
		}
		if len(data) > maxFileSize {
			return &FileError{Path: path, Msg: "is too large to be a settings file"}
		}
		if len(bytes.TrimSpace(data)) == 0 {
			continue
		}
		f, skipped, err := decodeClaudeSettings(data)
		if err != nil {
			return &FileError{Path: path, Line: jsonLine(data, err), Msg: "is not a Claude Code settings file gantry can read: " + err.Error()}
		}
		rec := ClaudeFile{Path: path, Skipped: skipped}
		if ignored := unusedClaudeKeys(data); len(ignored) > 0 {
			rec.Skipped = append(rec.Skipped, "gantry does not use these Claude Code settings: "+strings.Join(ignored, ", "))
		}
		// The project's files (all but the user's, the first) are held back while
		// the folder is not trusted: their hooks, allow rules and env.
		held := c.hold && (ClaudeDir() == "" || path != filepath.Join(ClaudeDir(), "settings.json"))
		c.mcpChosen.take(path, &f)
		if f.EnableAllProjectMcpServers && (ClaudeDir() == "" || path != filepath.Join(ClaudeDir(), "settings.json")) {
			rec.Skipped = append(rec.Skipped, "enableAllProjectMcpServers is covered by gantry's folder trust: the project's .mcp.json servers start once you trust this folder")
		}
		if !held {
			c.mcpApproved.all = c.mcpApproved.all || f.EnableAllProjectMcpServers
			c.mcpApproved.names = append(c.mcpApproved.names, f.EnabledMcpjsonServers...)
		}
		into := c
		if held {
			into = &Config{}
		}
		if err := takeClaudeHooks(into, path, root, f.Hooks, &rec); err != nil {
			return err
		}
		if held {
			c.holdHooks(path, into.Hooks)
		}
		for _, list := range []struct {
			rules []string
			kind  string
		}{{f.Permissions.Allow, "allow"}, {f.Permissions.Deny, "deny"}, {f.Permissions.Ask, "ask"}} {
			for i, r := range list.rules {
				g, err := ClaudeRule(r, root)
				if err != nil {
					if list.kind == "deny" {
						return &FileError{Path: path, Key: "permissions.deny", Msg: fmt.Sprintf("the deny rule %q (permissions.deny[%d]) cannot be kept by gantry (%v), and gantry does not start with a deny rule dropped: remove it from this file's permissions.deny, or start gantry in another folder", r, i, err)}
					}
					rec.Skipped = append(rec.Skipped, fmt.Sprintf("the %s rule %q was skipped: %v", list.kind, r, err))
					continue
				}
				switch {
				case list.kind == "allow" && held:
					c.held.Allow = append(c.held.Allow, fmt.Sprintf("%s (%s)", g, path))
				case list.kind == "allow":
					c.Permissions.Allow = append(c.Permissions.Allow, g)
					c.Permissions.allowFrom = append(c.Permissions.allowFrom, path)
					rec.Allow++
				case list.kind == "deny":
					c.Permissions.Deny = append(c.Permissions.Deny, g)
					c.Permissions.denyFrom = append(c.Permissions.denyFrom, path)
					rec.Deny++
				case list.kind == "ask":
					c.Permissions.Ask = append(c.Permissions.Ask, g)
					c.Permissions.askFrom = append(c.Permissions.askFrom, path)
					rec.Ask++
				}
			}
		}
		if len(f.Env) > 0 && held {
			for k := range f.Env {
				c.held.Env = append(c.held.Env, k)
			}
			sort.Strings(c.held.Env)
			c.held.Env = slices.Compact(c.held.Env)
		} else if len(f.Env) > 0 {
			if c.Claude.Env == nil {
				c.Claude.Env = map[string]string{}
			}
			for k, v := range f.Env {
				c.Claude.Env[k] = v
				rec.Env = append(rec.Env, k)
			}
			sort.Strings(rec.Env)
		}
		c.addClaudePlugins(path, f.EnabledPlugins, f.ExtraKnownMarketplaces, ClaudeDir() == "" || path != filepath.Join(ClaudeDir(), "settings.json"), &rec)
		takeClaudeMode(c, path, &f, held, &rec)
		c.Claude.Files = append(c.Claude.Files, rec)
	}
	return nil
}

// takeClaudeHooks adds the hooks of one Claude Code settings file, marked Claude.
func takeClaudeHooks(c *Config, path, root string, hooks map[string][]claudeMatcher, rec *ClaudeFile) error {
	events := make([]string, 0, len(hooks))
	for e := range hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	for _, event := range events {
		if !slices.Contains(HookEvents, event) {
			rec.Skipped = append(rec.Skipped, fmt.Sprintf("the %s hooks were skipped: gantry has no such event (it has %s)", event, strings.Join(HookEvents, ", ")))
			continue
		}
		for i, m := range hooks[event] {
			key := fmt.Sprintf("hooks.%s[%d]", event, i)
			if m.Matcher != "" && m.Matcher != "*" {
				if _, err := regexp.Compile("^(?:" + m.Matcher + ")$"); err != nil {
					rec.Skipped = append(rec.Skipped, fmt.Sprintf("%s was skipped: its matcher %q is not a valid regular expression (%v)", key, m.Matcher, err))
					continue
				}
			}
			hm := HookMatcher{Matcher: m.Matcher, Claude: true, From: path}
			for j, h := range m.Hooks {
				hk := fmt.Sprintf("%s.hooks[%d]", key, j)
				typ := h.Type
				if typ == "" {
					typ = "command"
				}
				if !slices.Contains(HookTypes, typ) {
					rec.Skipped = append(rec.Skipped, fmt.Sprintf("%s was skipped: gantry has no hooks of type %q", hk, h.Type))
					continue
				}
				if h.Shell != "" && h.Shell != "bash" {
					rec.Skipped = append(rec.Skipped, fmt.Sprintf("%s was skipped: it runs with %s, and gantry runs hook commands with bash", hk, h.Shell))
					continue
				}
				if why := hookShape(typ, h.Command, h.Prompt, h.Timeout); why != "" {
					rec.Skipped = append(rec.Skipped, hk+" was skipped: "+why)
					continue
				}
				timeout := int(h.Timeout)
				if h.Timeout > 0 && timeout == 0 {
					timeout = 1
				}
				hook := Hook{Type: typ, Command: h.Command, Prompt: h.Prompt, Timeout: timeout, Async: h.Async || h.AsyncRewake, AsyncRewake: h.AsyncRewake,
					RewakeMessage: strings.TrimSpace(h.RewakeMessage), RewakeSummary: strings.TrimSpace(h.RewakeSummary), StatusMessage: strings.TrimSpace(h.StatusMessage)}
				if strings.TrimSpace(h.If) != "" && slices.Contains(toolEvents, event) {
					cond, err := ParseClaudeIf(h.If, root)
					if err != nil {
						rec.Skipped = append(rec.Skipped, fmt.Sprintf("%s was skipped: its if %q cannot be read (%v)", hk, h.If, err))
						continue
					}
					hook.If = cond
				}
				if h.Once {
					rec.Skipped = append(rec.Skipped, fmt.Sprintf("%s has once, which gantry does not support: it runs every time its event comes", hk))
				}
				hm.Hooks = append(hm.Hooks, hook)
				rec.Hooks++
			}
			if len(hm.Hooks) > 0 {
				if c.Hooks == nil {
					c.Hooks = map[string][]HookMatcher{}
				}
				c.Hooks[event] = append(c.Hooks[event], hm)
			}
		}
	}
	return nil
}

// jsonLine is the line of a JSON syntax error in data, or 0.
func jsonLine(data []byte, err error) int {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	off := int64(-1)
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(data)) {
		return 0
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// toolEvents are the events of a tool call, the only ones where a hook's if is
// evaluated (Claude Code ignores it on the others).
var toolEvents = []string{"PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest", "PermissionDenied"}

// claudeTools maps Claude Code's tool names in permission rules to gantry's. A rule
// of Edit, Write or MultiEdit is a rule of every tool that writes files in gantry as
// in Claude Code (write_file names the family); Read of every tool that reads them.
var claudeTools = map[string]string{
	"Bash": "bash", "Read": "read_file", "Write": "write_file", "Edit": "write_file", "MultiEdit": "write_file",
	"Glob": "glob", "Grep": "grep", "LS": "glob", "WebFetch": "web_fetch", "WebSearch": "web_search",
	"Task": "agent", "Agent": "agent", "TodoWrite": "todo_write", "Skill": "read_skill", "ExitPlanMode": "exit_plan_mode",
	"BashOutput": "task_output", "TaskOutput": "task_output", "KillShell": "task_kill", "KillBash": "task_kill",
}

// ClaudeRule turns a Claude Code permission rule (Bash(npm run test:*), Read(./.env),
// Edit(src/**), WebFetch(domain:example.com), mcp__server, mcp__server__tool) into a
// gantry rule with the same meaning, for the project at root. A rule gantry cannot
// express is an error saying why.
func ClaudeRule(rule, root string) (string, error) {
	rule = strings.TrimSpace(rule)
	name, spec, hasSpec := strings.Cut(rule, "(")
	if hasSpec {
		if !strings.HasSuffix(spec, ")") {
			return "", errors.New("it has no closing parenthesis")
		}
		spec = strings.TrimSuffix(spec, ")")
	}
	if strings.HasPrefix(name, "mcp__") {
		if hasSpec {
			return "", errors.New("an MCP tool rule takes no argument")
		}
		if strings.Count(name, "__") == 1 || strings.HasSuffix(name, "__*") {
			return strings.TrimSuffix(strings.TrimSuffix(name, "*"), "__") + "__*", nil // every tool of the server
		}
		return name, nil
	}
	tool, ok := claudeTools[name]
	if !ok {
		return "", fmt.Errorf("gantry has no tool like Claude Code's %s", name)
	}
	if !hasSpec || spec == "" || spec == "*" {
		return tool, nil
	}
	switch name {
	case "Bash":
		return tool + ":" + commandPattern(spec), nil
	case "WebFetch":
		domain, ok := strings.CutPrefix(spec, "domain:")
		if !ok {
			return "", errors.New("a WebFetch rule names a domain (WebFetch(domain:example.com))")
		}
		return tool + `:https?://([^/@]*\.)?` + regexp.QuoteMeta(domain) + `(:[0-9]+)?(/.*)?`, nil
	case "Read", "Write", "Edit", "MultiEdit", "LS", "Glob", "Grep":
		return tool + ":" + pathPattern(spec, root), nil
	case "Skill":
		return tool + ":" + commandPattern(spec), nil // read_skill's principal is the skill's name
	case "Agent", "Task":
		return tool + ":" + regexp.QuoteMeta(spec), nil // the agent tool's principal is the subagent_type
	}
	return "", fmt.Errorf("gantry cannot read the argument of a %s rule", name)
}

// commandPattern is a Claude Code Bash rule's command as a regular expression: a
// trailing ":*" matches the prefix and any arguments, "*" any text, the rest literally.
func commandPattern(spec string) string {
	if prefix, ok := strings.CutSuffix(spec, ":*"); ok {
		return regexp.QuoteMeta(prefix) + `(\s.*)?`
	}
	parts := strings.Split(spec, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return strings.Join(parts, ".*")
}

// pathPattern is a Claude Code path pattern (gitignore style) as a regular expression
// on gantry's canonical paths: "//abs" and "~/x" are absolute, "/x" and "./x" and "x/y"
// are of the project root; a name without a slash matches at any depth; "**" any
// folders, "*" and "?" within one name.
func pathPattern(spec, root string) string {
	var abs bool
	switch {
	case strings.HasPrefix(spec, "//"):
		spec, abs = spec[1:], true
	case strings.HasPrefix(spec, "~/"):
		if home, err := os.UserHomeDir(); err == nil {
			spec, abs = filepath.Join(home, spec[2:]), true
		}
	case strings.HasPrefix(spec, "/"):
		spec = strings.TrimPrefix(spec, "/")
	case strings.HasPrefix(spec, "./"):
		spec = strings.TrimPrefix(spec, "./")
	default:
		if !strings.Contains(strings.TrimSuffix(spec, "/"), "/") {
			spec = "**/" + spec
		}
	}
	if abs && root != "" {
		if rel, err := filepath.Rel(root, spec); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			spec, abs = filepath.ToSlash(rel), false // inside the project: its relative form
		}
	}
	dir := strings.HasSuffix(spec, "/")
	var b strings.Builder
	for i := 0; i < len(spec); i++ {
		switch {
		case strings.HasPrefix(spec[i:], "**/"):
			b.WriteString(`(.*/)?`)
			i += 2
		case strings.HasPrefix(spec[i:], "**"):
			b.WriteString(`.*`)
			i++
		case spec[i] == '*':
			b.WriteString(`[^/]*`)
		case spec[i] == '?':
			b.WriteString(`[^/]`)
		default:
			b.WriteString(regexp.QuoteMeta(spec[i : i+1]))
		}
	}
	if dir {
		b.WriteString(`.*`)
	} else {
		b.WriteString(`(/.*)?`) // a folder covers what is in it
	}
	return b.String()
}
