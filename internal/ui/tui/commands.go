package tui

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/session"
)

// command is a slash command of the terminal.
type command struct {
	name, about, hint string
	run               func(m *Model, args string) tea.Cmd
}

// commands is the one table of slash commands; later features add theirs here. It
// is filled in init because /help lists it.
var commands []command

func init() {
	commands = []command{
		{"help", "list the commands and keys", "", (*Model).cmdHelp},
		{"model", "switch the model (without a name: pick one from a list)", "[name]", (*Model).cmdModel},
		{"mode", "show or switch the permission mode", "[default|accept-edits|plan|yolo]", (*Model).cmdMode},
		{"compact", "summarise the conversation to free the model's context", "[focus]", (*Model).cmdCompact},
		{"clear", "start a new session (the current one stays stored)", "", (*Model).cmdClear},
		{"resume", "continue a stored session (without an id: pick one of this folder)", "[id]", (*Model).cmdResume},
		{"sessions", "list the stored sessions", "", (*Model).cmdSessions},
		{"skills", "list the skills found", "", (*Model).cmdSkills},
		{"agents", "list the agent definitions and where each came from", "", (*Model).cmdAgents},
		{"plugin", "list the enabled plugins (gantry plugin add|remove changes them)", "", (*Model).cmdPlugin},
		{"hooks", "list the configured hooks", "", (*Model).cmdHooks},
		{"mcp", "list the MCP servers, where they stand and their tools", "", (*Model).cmdMCP},
		{"permissions", "show the mode and the allow and deny rules", "", (*Model).cmdPermissions},
		{"cost", "the session's tokens and cost, by model", "", (*Model).cmdCost},
		{"context", "what fills the model's context window, in tokens", "", (*Model).cmdContext},
		{"output-style", "list the output styles, or switch to one (default: none)", "[name|default]", (*Model).cmdOutputStyle},
		{"doctor", "what is in force, what was read from gantry's, Claude Code's and Codex's files, what was ignored", "", (*Model).cmdDoctor},
		{"memory", "list the memory files in force, in order, and the rules waiting for their paths", "", (*Model).cmdMemory},
		{"export", "write the transcript as Markdown into the session's folder of gantry's data folder, or at an absolute path", "[file]", (*Model).cmdExport},
		{"rewind", "go back to before a prompt: its files, its conversation, or both", "", (*Model).cmdRewind},
		{"vibe", "turn vibe mode (background workers) on or off, list the workers, stop them", "[on|off|stop]", (*Model).cmdVibe},
		{"quit", "leave gantry", "", (*Model).cmdQuit},
	}
}

// command runs text when it names a command.
func (m *Model) command(text string) (tea.Cmd, bool) {
	name, args, _ := strings.Cut(strings.TrimPrefix(text, "/"), " ")
	for _, c := range commands {
		if c.name == name {
			m.print("", m.st.r(m.st.user, "› ")+text)
			return c.run(m, strings.TrimSpace(args)), true
		}
	}
	for _, sk := range m.app.Skills() {
		if sk.Name == name {
			return nil, false // a skill: the prompt references it (below)
		}
	}
	for _, c := range m.app.Commands() {
		if c.Name == name {
			return nil, false // a custom command: the App expands the prompt
		}
	}
	if strings.ContainsAny(name, "/. ") || name == "" {
		return nil, false // a path, not a command
	}
	m.say(fmt.Sprintf("unknown command /%s — /help lists them", name))
	return func() tea.Msg { return nil }, true
}

func (m *Model) cmdHelp(string) tea.Cmd {
	var rows [][]string
	for _, c := range commands {
		rows = append(rows, []string{strings.TrimSpace("/" + c.name + " " + c.hint), c.about})
	}
	for _, sk := range m.app.Skills() {
		rows = append(rows, []string{"/" + sk.Name, "skill: " + sk.Description})
	}
	for _, c := range m.app.Commands() {
		rows = append(rows, []string{strings.TrimSpace("/" + c.Name + " " + c.ArgumentHint), c.Description})
	}
	lines := []string{m.st.r(m.st.bold, "Commands")}
	lines = append(lines, table(rows, m.width, "  ")...)
	lines = append(lines, m.st.r(m.st.bold, "Keys"))
	lines = append(lines, table([][]string{
		{"enter", "send"},
		{"shift+enter, ctrl+j", "new line"},
		{"↑ ↓", "prompt history"},
		{"tab", "complete @file, @skill:, /command"},
		{"esc", "interrupt the turn; between turns, twice: stop the vibe workers, or on an empty input /rewind"},
		{"ctrl+c", "interrupt the turn and its command, as esc; between turns: clear the input"},
		{"shift+tab", "cycle the mode: default, accept-edits, plan, yolo"},
		{"ctrl+t", "show the last thinking"},
		{"ctrl+o", "print the transcript again"},
		{"ctrl+v", "attach a clipboard image"},
		{"ctrl+c twice", "quit"},
	}, m.width, "  ")...)
	if len(lines) > 0 {
		m.print(lines...)
	}
	return nil
}

func (m *Model) cmdModel(args string) tea.Cmd {
	if args == "" {
		m.openModelPicker()
		return nil
	}
	m.switchModel(args)
	return nil
}

func (m *Model) cmdMode(args string) tea.Cmd {
	if args == "" {
		m.print(fmt.Sprintf("mode: %s (%s)", m.mode, m.mode.About()))
		return nil
	}
	md, err := permission.ParseMode(args)
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		return nil
	}
	m.app.SetMode(md)
	m.print(fmt.Sprintf("mode: %s (%s)", md, md.About()))
	return nil
}

func (m *Model) cmdCompact(args string) tea.Cmd {
	if m.running {
		m.app.RequestCompaction(args)
		m.say("the conversation is compacted before the next model request")
		return nil
	}
	return m.startCompaction(args)
}

func (m *Model) cmdClear(string) tea.Cmd {
	if m.running {
		m.say("interrupt the turn first (esc)")
		return nil
	}
	if err := m.switchSession(""); err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		return nil
	}
	m.print(m.st.r(m.st.dim, "── new session "+m.app.SessionID()+" (/resume takes the last one up again) ──"))
	return nil
}

func (m *Model) cmdResume(args string) tea.Cmd {
	if m.running {
		m.say("interrupt the turn first (esc)")
		return nil
	}
	if args == "" {
		m.openResumePicker()
		return nil
	}
	m.resume(args)
	return nil
}

func (m *Model) cmdSessions(string) tea.Cmd {
	list, err := m.sessions()
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		return nil
	}
	if len(list) == 0 {
		m.print("no stored sessions yet")
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "Sessions (newest first; /resume ID)")}
	var rows [][]string
	for i, s := range list {
		if i == 20 {
			break
		}
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		rows = append(rows, []string{s.ID, s.Updated.Local().Format(time.DateTime), shortPath(s.Cwd), title})
	}
	lines = append(lines, table(rows, m.width, "  ")...)
	if len(list) > 20 {
		lines = append(lines, fmt.Sprintf("  … %d more (gantry sessions lists them all)", len(list)-20))
	}
	if len(lines) > 0 {
		m.print(lines...)
	}
	return nil
}

func (m *Model) cmdSkills(string) tea.Cmd {
	skills := m.app.Skills()
	if len(skills) == 0 {
		m.print("no skills found (docs/config.md says where gantry looks)")
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "Skills (use one with /name or @skill:name)")}
	var rows [][]string
	for _, sk := range skills {
		rows = append(rows, []string{sk.Name, sk.Description})
	}
	m.print(append(lines, table(rows, m.width, "  ")...)...)
	return nil
}

func (m *Model) cmdHooks(string) tea.Cmd {
	hooks := m.app.Hooks()
	if len(hooks) == 0 {
		m.print("no hooks configured (docs/hooks.md)")
		return nil
	}
	var rows [][]string
	for _, h := range hooks {
		match := h.Matcher
		if match == "" {
			match = "*"
		}
		rows = append(rows, []string{h.Event, match, h.Source, h.What()})
	}
	m.print(append([]string{m.st.r(m.st.bold, "Hooks")}, table(rows, m.width, "  ")...)...)
	return nil
}

func (m *Model) cmdPermissions(string) tea.Cmd {
	lines := []string{m.st.r(m.st.bold, "Permissions"), fmt.Sprintf("  mode: %s (%s)", m.mode, m.mode.About())}
	allow, deny := m.app.Rules()
	add := func(kind string, rules []permission.Rule) {
		if len(rules) == 0 {
			lines = append(lines, "  "+kind+": none")
			return
		}
		lines = append(lines, "  "+kind+":")
		var rows [][]string
		for _, r := range rules {
			from := r.Source
			if from == "" {
				from = "this session"
			}
			rows = append(rows, []string{r.String(), m.st.r(m.st.dim, from)})
		}
		lines = append(lines, table(rows, m.width, "    ")...)
	}
	add("allow", allow)
	add("deny", deny)
	lines = append(lines, "  rules files (the project's first):")
	for _, f := range m.app.RulesFiles() {
		state := "not there yet"
		if _, err := os.Stat(f); err == nil {
			state = "read"
		}
		lines = append(lines, "    "+f+m.st.r(m.st.dim, " ("+state+")"))
	}
	lines = append(lines, m.st.r(m.st.dim, "  answers given \"for the rest of the session\" are kept until the session ends; docs/permissions.md"))
	if len(lines) > 0 {
		m.print(lines...)
	}
	return nil
}

func (m *Model) cmdQuit(string) tea.Cmd {
	m.quit()
	return nil
}

// sessions lists the stored sessions.
func (m *Model) sessions() ([]session.Info, error) {
	st, err := session.OpenRead(app.StorePath(m.opts.App))
	if errors.Is(err, session.ErrNoStore) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer st.Close()
	return st.List(0)
}

func shortPath(p string) string {
	if len([]rune(p)) > 40 {
		r := []rune(p)
		return "…" + string(r[len(r)-39:])
	}
	return p
}

func (m *Model) cmdVibe(args string) tea.Cmd {
	switch args {
	case "":
		m.app.SetVibe(!m.app.Vibe())
	case "on":
		m.app.SetVibe(true)
	case "off":
		m.app.SetVibe(false)
	case "stop":
		m.print(fmt.Sprintf("stopped %d worker(s)", m.app.StopWorkers()))
		return nil
	default:
		m.say("/vibe takes on, off or stop")
		return nil
	}
	var lines []string // the App's notice says the mode; here, the workers
	for _, w := range m.app.Workers() {
		lines = append(lines, fmt.Sprintf("  %s [%s] %s (%s), %s, %s", w.ID, w.Label, w.Tier, w.Model, w.Status, w.Elapsed.Round(time.Second)))
	}
	if len(lines) > 0 {
		m.print(lines...)
	}
	return nil
}

// modelUse is one model's usage in the session.
type modelUse struct {
	usage     llm.Usage
	cost      float64
	responses int
}

func (m *Model) cmdCost(string) tea.Cmd {
	if len(m.byModel) == 0 {
		m.print("no model request yet in this session")
		return nil
	}
	names := make([]string, 0, len(m.byModel))
	for n := range m.byModel {
		names = append(names, n)
	}
	sort.Strings(names)
	rows := [][]string{{"model", "responses", "input", "output", "cache read", "cache write", "cost"}}
	var total float64
	for _, n := range names {
		u := m.byModel[n]
		total += u.cost
		rows = append(rows, []string{n, fmt.Sprint(u.responses), short(u.usage.InputTokens), short(u.usage.OutputTokens),
			short(u.usage.CacheReadTokens), short(u.usage.CacheWriteTokens), fmt.Sprintf("$%.4f", u.cost)})
	}
	lines := table(rows, m.width, "  ")
	if !tableFits(rows, m.width, "  ") {
		lines = costList(rows, m.width)
	}
	lines = append(lines, fmt.Sprintf("  total $%.4f", total))
	m.print(lines...)
	return nil
}

func (m *Model) cmdContext(string) tea.Cmd {
	parts, window := m.app.Context()
	total := 0
	for _, p := range parts {
		total += p.Tokens
	}
	rows := [][]string{}
	for _, p := range parts {
		share := ""
		if window > 0 {
			share = fmt.Sprintf("%.1f%%", 100*float64(p.Tokens)/float64(window))
		}
		rows = append(rows, []string{p.Name, "~" + short(int64(p.Tokens)), share})
	}
	head := fmt.Sprintf("context: ~%s tokens", short(int64(total)))
	if window > 0 {
		head += fmt.Sprintf(" of %s (%.0f%%)", short(int64(window)), 100*float64(total)/float64(window))
	}
	lines := append([]string{head + " (estimated at four characters a token)"}, table(rows, m.width, "  ")...)
	lines = append(lines, "  "+m.meter.line(window))
	tv := m.app.Tools()
	lines = append(lines, fmt.Sprintf("  tools declared (%d): %s", len(tv.Declared), strings.Join(tv.Declared, ", ")))
	if len(tv.Deferred) > 0 {
		lines = append(lines, fmt.Sprintf("  deferred (%d, found by %s): %s", len(tv.Deferred), tv.Search, strings.Join(tv.Deferred, ", ")))
		found := "none yet"
		if len(tv.Found) > 0 {
			found = strings.Join(tv.Found, ", ")
		}
		lines = append(lines, "  found: "+found)
	}
	m.print(lines...)
	return nil
}

func (m *Model) cmdMemory(string) tea.Cmd {
	files, truncated := m.app.MemoryFiles()
	if len(files) == 0 {
		m.print("no memory files (docs/config.md says where gantry looks)")
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "Memory files, from the broadest to the closest")}
	var rows [][]string
	for _, f := range files {
		path := f.Path
		if rel, err := filepath.Rel(m.app.Cwd(), path); err == nil && !strings.HasPrefix(rel, "..") {
			path = rel
		}
		size := "unreadable"
		if f.Size >= 0 {
			size = short(f.Size) + " B"
		}
		state := f.State
		if len(f.Globs) > 0 {
			state += ": " + strings.Join(f.Globs, ", ")
		}
		rows = append(rows, []string{path, size, state})
	}
	lines = append(lines, table(rows, m.width, "  ")...)
	if truncated {
		lines = append(lines, m.st.r(m.st.warn, "⚠ the memory was cut at its bound: the rest is left out"))
	}
	m.print(lines...)
	return nil
}

func (m *Model) cmdOutputStyle(args string) tea.Cmd {
	if args != "" && m.running {
		// The system prompt is fixed while a turn runs (its requests read it).
		m.print(m.st.r(m.st.warn, "⚠ switch the output style when this turn ends"))
		return nil
	}
	if args != "" {
		name, err := m.app.SetOutputStyle(args)
		switch {
		case err != nil && name == "":
			m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		case err != nil:
			m.print(m.st.r(m.st.warn, "⚠ output style "+name+" in force, but "+err.Error()))
		case name == "":
			m.print("output style: default (the system prompt changed: the next request caches it anew)")
		default:
			m.print("output style: " + name + " (the system prompt changed: the next request caches it anew)")
		}
		return nil
	}
	styles, err := m.app.OutputStyles()
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
	}
	current := m.app.OutputStyle()
	if current == "" {
		current = "default"
	}
	lines := []string{m.st.r(m.st.bold, "Output style: "+current+" (switch with /output-style name, or default)")}
	if len(styles) == 0 {
		m.print(append(lines, "  no output styles found (docs/config.md says where gantry looks)")...)
		return nil
	}
	var rows [][]string
	for _, s := range styles {
		rows = append(rows, []string{s.Name, s.Description})
	}
	m.print(append(lines, table(rows, m.width, "  ")...)...)
	return nil
}

func (m *Model) cmdExport(args string) tea.Cmd {
	path, size, err := m.app.Export(args)
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the transcript was not exported: "+err.Error()))
		return nil
	}
	m.print(fmt.Sprintf("wrote the transcript to %s (%d KB)", path, (size+1023)/1024))
	return nil
}
