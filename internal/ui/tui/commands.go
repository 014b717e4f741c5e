package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
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
		{"model", "show or switch the model", "[name]", (*Model).cmdModel},
		{"mode", "show or switch the permission mode", "[default|accept-edits|plan|yolo]", (*Model).cmdMode},
		{"compact", "summarise the conversation to free the model's context", "[focus]", (*Model).cmdCompact},
		{"clear", "start a new session (the current one stays stored)", "", (*Model).cmdClear},
		{"resume", "continue a stored session (the latest of this folder without an id)", "[id]", (*Model).cmdResume},
		{"sessions", "list the stored sessions", "", (*Model).cmdSessions},
		{"skills", "list the skills found", "", (*Model).cmdSkills},
		{"hooks", "list the configured hooks", "", (*Model).cmdHooks},
		{"permissions", "show the mode and the allow and deny rules", "", (*Model).cmdPermissions},
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
	if strings.ContainsAny(name, "/. ") || name == "" {
		return nil, false // a path, not a command
	}
	m.say(fmt.Sprintf("unknown command /%s — /help lists them", name))
	return func() tea.Msg { return nil }, true
}

func (m *Model) cmdHelp(string) tea.Cmd {
	lines := []string{m.st.r(m.st.bold, "Commands")}
	for _, c := range commands {
		lines = append(lines, fmt.Sprintf("  /%-12s %s", strings.TrimSpace(c.name+" "+c.hint), c.about))
	}
	for _, sk := range m.app.Skills() {
		lines = append(lines, fmt.Sprintf("  /%-12s skill: %s", sk.Name, sk.Description))
	}
	lines = append(lines, m.st.r(m.st.bold, "Keys"),
		"  enter send · shift+enter or ctrl+j new line · ↑↓ prompt history · tab complete @file, @skill:, /command",
		"  esc interrupt the turn · shift+tab cycle the mode · ctrl+t show the last thinking",
		"  ctrl+o print the transcript again · ctrl+v attach a clipboard image · ctrl+c twice quit")
	m.print(lines...)
	return nil
}

func (m *Model) cmdModel(args string) tea.Cmd {
	if args == "" {
		m.print(fmt.Sprintf("model: %s (%s)", m.app.Agent.Config.Model, m.app.Provider))
		return nil
	}
	if m.running {
		m.say("the model changes between turns; try again when this one ends")
		return nil
	}
	m.app.SetModel(args)
	m.print("model: " + args)
	return nil
}

func (m *Model) cmdMode(args string) tea.Cmd {
	if args == "" {
		m.print("mode: " + string(m.app.Gate.Mode()))
		return nil
	}
	md, err := permission.ParseMode(args)
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		return nil
	}
	m.app.Gate.SetMode(md)
	m.print("mode: " + string(md))
	return nil
}

func (m *Model) cmdCompact(args string) tea.Cmd {
	if m.running {
		m.app.Agent.RequestCompaction(args)
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
	m.print(m.st.r(m.st.dim, "── new session "+m.app.Session.ID()+" ──"))
	return nil
}

func (m *Model) cmdResume(args string) tea.Cmd {
	if m.running {
		m.say("interrupt the turn first (esc)")
		return nil
	}
	id := args
	if id == "" {
		id = "@cwd"
	}
	if err := m.switchSession(id); err != nil {
		m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
		return nil
	}
	m.replay()
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
	for i, s := range list {
		if i == 20 {
			lines = append(lines, fmt.Sprintf("  … %d more (gantry sessions lists them all)", len(list)-20))
			break
		}
		title := s.Title
		if title == "" {
			title = "(untitled)"
		}
		lines = append(lines, fmt.Sprintf("  %s  %s  %s  %s", s.ID, s.Updated.Local().Format(time.DateTime), shortPath(s.Cwd), title))
	}
	m.print(lines...)
	return nil
}

func (m *Model) cmdSkills(string) tea.Cmd {
	skills := m.app.Skills()
	if len(skills) == 0 {
		m.print("no skills found (docs/config.md says where gantry looks)")
		return nil
	}
	lines := []string{m.st.r(m.st.bold, "Skills (use one with /name or @skill:name)")}
	for _, sk := range skills {
		lines = append(lines, fmt.Sprintf("  %-20s %s", sk.Name, sk.Description))
	}
	m.print(lines...)
	return nil
}

func (m *Model) cmdHooks(string) tea.Cmd {
	hooks := m.app.Config.Hooks
	if len(hooks) == 0 {
		m.print("no hooks configured (docs/hooks.md)")
		return nil
	}
	events := make([]string, 0, len(hooks))
	for e := range hooks {
		events = append(events, e)
	}
	sort.Strings(events)
	lines := []string{m.st.r(m.st.bold, "Hooks")}
	for _, e := range events {
		for _, mt := range hooks[e] {
			match := mt.Matcher
			if match == "" {
				match = "*"
			}
			for _, h := range mt.Hooks {
				lines = append(lines, fmt.Sprintf("  %-16s %-14s %s", e, match, h.Command))
			}
		}
	}
	m.print(lines...)
	return nil
}

func (m *Model) cmdPermissions(string) tea.Cmd {
	p := m.app.Config.Permissions
	lines := []string{m.st.r(m.st.bold, "Permissions"), "  mode: " + string(m.app.Gate.Mode())}
	add := func(kind string, rules []string) {
		if len(rules) == 0 {
			lines = append(lines, "  "+kind+": none")
			return
		}
		lines = append(lines, "  "+kind+":")
		for _, r := range rules {
			lines = append(lines, "    "+r)
		}
	}
	add("allow", append(append([]string(nil), p.Allow...), m.opts.App.Allow...))
	add("deny", append(append([]string(nil), p.Deny...), m.opts.App.Deny...))
	lines = append(lines, m.st.r(m.st.dim, "  answers given with \"for the rest of the session\" are kept until gantry exits; docs/permissions.md"))
	m.print(lines...)
	return nil
}

func (m *Model) cmdQuit(string) tea.Cmd {
	m.interrupt()
	m.quitting = true
	return nil
}

// sessions lists the stored sessions.
func (m *Model) sessions() ([]session.Info, error) {
	st, err := session.Open(app.StorePath(m.opts.App))
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
