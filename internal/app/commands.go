package app

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/commands"
	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/refs"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// commandState is what the session keeps of the person's custom slash commands: the
// one ExpandPrompt found for the next Run, and the problems already said.
type commandState struct {
	mu      sync.Mutex
	pending *pendingCommand
	said    map[string]bool
	n       int // the !`lines` run, for their call ids
}

// pendingCommand is a prompt that runs a command: Run expands it.
type pendingCommand struct {
	typed    string
	cmd      commands.Command
	args     string
	problems []string // what the commands' files could not give, said once each
}

// Commands lists the person's custom slash commands (see package commands), read
// again each time so that a file added during the session is found; the project's
// are left out while the folder is not trusted (and their allowed-tools are granted
// only once the person trusted it, see runCommand). It sends no event, so a face may
// call it from its own loop; what could not be read is said when a command runs.
func (a *App) Commands() []commands.Command {
	cmds, _ := a.findCommands()
	return cmds
}

// findCommands is Commands with the sentences of what could not be read.
func (a *App) findCommands() ([]commands.Command, []string) {
	cmds, _, err := commands.Find(commandDirs(a.cfg, a.FolderTrust().Trusted()))
	var problems []string
	if err != nil {
		problems = append(problems, err.Error())
	}
	cmds = append(cmds, a.mcpPromptCommands(cmds)...)
	for _, c := range cmds {
		for _, p := range c.Problems {
			problems = append(problems, fmt.Sprintf("The command %s: %s.", c.Path, p))
		}
	}
	return cmds, problems
}

// expandCommand is ExpandPrompt's part for "/name args" naming a custom command: the
// prompt is kept as typed and Run expands it (its !`lines` may ask the person, which
// only a turn may do).
func (a *App) expandCommand(prompt string) bool {
	cmds, problems := a.findCommands()
	c, args, ok := commands.Lookup(cmds, prompt)
	if !ok {
		return false
	}
	a.cmds.mu.Lock()
	a.cmds.pending = &pendingCommand{typed: prompt, cmd: c, args: args, problems: problems}
	a.cmds.mu.Unlock()
	return true
}

// runCommand turns the prompt of a pending command into the prompt the model
// receives: its allowed-tools are allowed and its model used until undo (the turn's
// end), each said to the person; its !`lines` run through the bash tool, under the
// permission gate and the sandbox, as the model's calls do; its @file references are
// inserted. Any other prompt is returned as it is.
func (a *App) runCommand(ctx context.Context, prompt string) (expanded string, undo func()) {
	a.cmds.mu.Lock()
	p := a.cmds.pending
	a.cmds.pending = nil
	a.cmds.mu.Unlock()
	if p == nil || p.typed != prompt {
		return prompt, func() {}
	}
	for _, n := range p.problems {
		a.cmds.mu.Lock()
		if a.cmds.said == nil {
			a.cmds.said = map[string]bool{}
		}
		said := a.cmds.said[n]
		a.cmds.said[n] = true
		a.cmds.mu.Unlock()
		if !said {
			a.emit(face.Notice{Text: n})
		}
	}
	c := p.cmd
	var undos []func()
	undo = func() {
		for i := len(undos) - 1; i >= 0; i-- {
			undos[i]()
		}
	}
	if len(c.AllowedTools) > 0 && c.Scope == "project" && !a.trustedByPerson() {
		// A folder with nothing else to trust is never asked: its commands run, but
		// grant nothing.
		a.emit(face.Notice{Text: fmt.Sprintf("The command /%s is the project's, whose folder was not trusted (--trust, or trustedFolders), so its allowed-tools are not granted: its calls are asked as usual.", c.Name)})
	} else if len(c.AllowedTools) > 0 {
		rules, ignored := skill.RulesOf(c.AllowedTools, a.reg.Known)
		var said []string
		if len(rules) > 0 {
			remove, err := a.gate.AllowUntil(rules, "command /"+c.Name)
			if err != nil {
				ignored = append(ignored, fmt.Sprintf("%s (%v)", strings.Join(rules, ", "), err))
			} else {
				undos = append(undos, remove)
				said = append(said, fmt.Sprintf("The command /%s allows for this turn, without asking (deny rules still apply): %s.", c.Name, strings.Join(rules, ", ")))
			}
		}
		if len(ignored) > 0 {
			said = append(said, "Ignored from its allowed-tools: "+strings.Join(ignored, "; ")+".")
		}
		a.emit(face.Notice{Text: strings.Join(said, " "), Info: len(ignored) == 0})
	}
	// Claude Code's aliases (sonnet, opus, haiku, inherit) as an agent definition's.
	if model := agentModel(c.Model, a.provider, a.agent.Config.Model, a.cfg.Models); c.Model != "" && model != a.agent.Config.Model {
		before, window := a.agent.Config.Model, a.agent.Config.ContextWindow
		a.agent.Config.Model, a.agent.Config.ContextWindow = model, contextWindow(a.cfg, model)
		undos = append(undos, func() { a.agent.Config.Model, a.agent.Config.ContextWindow = before, window })
		a.emit(face.Notice{Text: fmt.Sprintf("The command /%s runs this turn on %s.", c.Name, model), Info: true})
	}
	var body string
	var notes []string
	if c.Source == "mcp" {
		body, notes = a.mcpPrompt(ctx, c, p.args)
	} else {
		body, notes = commands.Expand(ctx, c, p.args, a.commandShell)
	}
	r := refs.Expand(body, refs.Options{Cwd: a.opts.Cwd, MaxOutput: a.cfg.MaxOutput, Skills: a.skills.List()})
	for _, n := range append(notes, r.Notes...) {
		a.emit(face.Notice{Text: n})
	}
	return r.Prompt, undo
}

// commandShell runs one !`line` of a command as a call of the bash tool: the gate
// asks or refuses as for the model's calls (the command's allowed-tools are in force),
// hooks run, and the sandbox holds.
func (a *App) commandShell(ctx context.Context, line string) (string, error) {
	a.cmds.mu.Lock()
	a.cmds.n++
	id := fmt.Sprintf("command_shell_%d", a.cmds.n)
	a.cmds.mu.Unlock()
	input, err := json.Marshal(map[string]any{"command": line})
	if err != nil {
		return "", fmt.Errorf("encoding the command line: %w", err)
	}
	r := a.agent.Call(ctx, id, "bash", input)
	if r.IsError {
		return "", errors.New(strings.TrimSpace(r.Text))
	}
	return r.Text, nil
}

// trustedByPerson says the person trusted the session's folder (--trust, trustedFolders,
// a yes), not merely that it has nothing held back.
func (a *App) trustedByPerson() bool {
	t := a.FolderTrust()
	return t.State == TrustTrusted || a.opts.Trust || a.cfg.Trusts(t.Folder)
}

// commandDirs are the folders custom commands are read from: the project's (when
// projectOK), the user's, Claude Code's and Codex's, and the enabled plugins'.
func commandDirs(cfg *config.Config, projectOK bool) commands.Dirs {
	return commands.Dirs{
		Project: cfg.Root(), ProjectOK: projectOK,
		User: config.UserDir(), Claude: config.ClaudeDir(), Codex: config.CodexDir(),
		Plugins: pluginCommands(cfg.Plugins()),
	}
}

// commandRows are `gantry doctor`'s lines about the custom commands: each one found
// with its file, those left out (a name found first, a folder not trusted) and what
// could not be read.
func commandRows(cfg *config.Config, projectOK bool) []DoctorRow {
	root := cfg.Root()
	cmds, shadowed, err := commands.Find(commandDirs(cfg, projectOK))
	rows := []DoctorRow{{Name: "commands", Value: fmt.Sprintf("%d custom command(s) (docs/commands.md)", len(cmds))}}
	for _, c := range cmds {
		rows = append(rows, DoctorRow{Value: fmt.Sprintf("/%s: %s", c.Name, c.Path)})
		for _, p := range c.Problems {
			rows = append(rows, DoctorRow{Value: fmt.Sprintf("  %s: %s", c.Path, p), Problem: true})
		}
	}
	for _, p := range shadowed {
		rows = append(rows, DoctorRow{Value: "ignored: " + p + " (a command of that name was found first)", Problem: true})
	}
	if !projectOK && (commandDirExists(filepath.Join(root, ".gantry", "commands")) || commandDirExists(filepath.Join(root, ".claude", "commands"))) {
		rows = append(rows, DoctorRow{Value: "ignored: the project's commands (the folder is not trusted)", Problem: true})
	}
	if err != nil {
		rows = append(rows, DoctorRow{Value: "not read: " + err.Error(), Problem: true})
	}
	return rows
}

func commandDirExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// mcpPromptCommands are the prompts of the connected MCP servers as commands named
// mcp__server__prompt, as Claude Code names them; a name taken by a command file is
// left to it.
func (a *App) mcpPromptCommands(files []commands.Command) []commands.Command {
	taken := map[string]bool{}
	for _, c := range files {
		taken[c.Name] = true
	}
	var out []commands.Command
	for _, st := range a.mcp.all() {
		for _, p := range st.Prompts {
			name := "mcp__" + strings.ReplaceAll(st.Name, " ", "_") + "__" + strings.ReplaceAll(p.Name, " ", "_")
			if taken[name] {
				continue
			}
			taken[name] = true
			var hint, args []string
			for _, arg := range p.Args {
				args = append(args, arg.Name)
				if arg.Required {
					hint = append(hint, "<"+arg.Name+">")
				} else {
					hint = append(hint, "["+arg.Name+"]")
				}
			}
			out = append(out, commands.Command{Name: name, Description: strings.TrimSpace(p.Description + " (MCP server " + st.Name + ")"),
				ArgumentHint: strings.Join(hint, " "), Source: "mcp", Scope: "mcp", MCPServer: st.Name, MCPPrompt: p.Name, MCPArgs: args})
		}
	}
	return out
}

// mcpPrompt asks an MCP server for the text of its prompt c: the words of args go to
// its arguments in order, name=value to the one named.
func (a *App) mcpPrompt(ctx context.Context, c commands.Command, args string) (string, []string) {
	values := map[string]string{}
	words := commands.SplitArgs(args)
	next := 0
	for _, w := range words {
		if k, v, ok := strings.Cut(w, "="); ok && slices.Contains(c.MCPArgs, k) {
			values[k] = v
			continue
		}
		for next < len(c.MCPArgs) && values[c.MCPArgs[next]] != "" {
			next++
		}
		if next < len(c.MCPArgs) {
			values[c.MCPArgs[next]] = w
			next++
		} else if len(c.MCPArgs) > 0 {
			last := c.MCPArgs[len(c.MCPArgs)-1] // more words than arguments: the last takes the rest
			values[last] += " " + w
		}
	}
	for _, st := range a.mcp.all() {
		if st.Name == c.MCPServer && st.set != nil {
			text, err := st.set.GetPrompt(ctx, c.MCPServer, c.MCPPrompt, values)
			if err != nil {
				return args, []string{fmt.Sprintf("/%s: %v; the arguments were sent as they are.", c.Name, err)}
			}
			return text, nil
		}
	}
	return args, []string{fmt.Sprintf("/%s: the MCP server %s is no longer connected; the arguments were sent as they are.", c.Name, c.MCPServer)}
}
