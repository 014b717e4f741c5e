package acp

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// command is one slash command an editor offers (it arrives as prompt text,
// "/name input").
type command struct {
	name, about, hint string
	// run does the command and returns what to tell the person.
	run func(s *session, ctx context.Context, input string) (reply string)
}

// commands is the table of gantry's slash commands in an editor. Skills are added
// after it, each as /<skill name>. (It is filled in init: /help lists it.)
var commands []command

func init() { commands = commandTable() }

func commandTable() []command {
	return []command{
		{"help", "List gantry's commands", "", func(s *session, _ context.Context, _ string) string {
			var b strings.Builder
			b.WriteString("gantry's commands:\n\n")
			for _, c := range s.availableCommands() {
				fmt.Fprintf(&b, "- `/%s` — %s\n", c.Name, c.Description)
			}
			return b.String()
		}},
		{"compact", "Summarise the conversation so far to free the model's context", "what the summary should keep in focus", func(s *session, ctx context.Context, focus string) string {
			before, after, err := s.app.Compact(ctx, focus)
			switch {
			case err != nil:
				return fmt.Sprintf("The conversation was not compacted: %v.", err)
			case after < before:
				return "" // the compaction's own notice said it
			}
			return "There was nothing to compact yet."
		}},
		{"context", "Show what fills the model's context, and the tools declared, deferred and found", "", func(s *session, _ context.Context, _ string) string {
			parts, window := s.app.Context()
			var b strings.Builder
			total := 0
			for _, p := range parts {
				total += p.Tokens
			}
			fmt.Fprintf(&b, "Context: ~%d tokens", total)
			if window > 0 {
				fmt.Fprintf(&b, " of %d (%.0f%%)", window, 100*float64(total)/float64(window))
			}
			b.WriteString(", estimated at four characters a token:\n\n")
			for _, p := range parts {
				fmt.Fprintf(&b, "- %s: ~%d\n", p.Name, p.Tokens)
			}
			b.WriteString("\n" + s.lastRequestShare(window) + "\n")
			tv := s.app.Tools()
			fmt.Fprintf(&b, "\nTools declared (%d): %s\n", len(tv.Declared), strings.Join(tv.Declared, ", "))
			if len(tv.Deferred) > 0 {
				found := "none yet"
				if len(tv.Found) > 0 {
					found = strings.Join(tv.Found, ", ")
				}
				fmt.Fprintf(&b, "\nDeferred (%d, found by %s): %s\n\nFound: %s\n", len(tv.Deferred), tv.Search, strings.Join(tv.Deferred, ", "), found)
			}
			return b.String()
		}},
		{"output-style", "List the output styles, or switch to one (default: none)", "name", func(s *session, _ context.Context, name string) string {
			if name != "" {
				got, err := s.app.SetOutputStyle(name)
				switch {
				case err != nil && got == "":
					return "Not switched: " + err.Error() + "."
				case err != nil:
					return fmt.Sprintf("The output style is now %s, but %v.", got, err)
				case got == "":
					return "The output style is now the default. The system prompt changed: the next request caches it anew."
				}
				return "The output style is now " + got + ". The system prompt changed: the next request caches it anew."
			}
			current := s.app.OutputStyle()
			if current == "" {
				current = "default"
			}
			var b strings.Builder
			fmt.Fprintf(&b, "The output style is %s. Switch with /output-style name, or default.\n", current)
			styles, err := s.app.OutputStyles()
			if err != nil {
				fmt.Fprintf(&b, "\nSome styles could not be read: %v.\n", err)
			}
			if len(styles) == 0 {
				b.WriteString("\nNo output styles were found (see docs/config.md for where gantry looks).\n")
			}
			for _, st := range styles {
				fmt.Fprintf(&b, "\n- `%s` — %s", st.Name, st.Description)
			}
			return b.String()
		}},
		{"memory", "List the memory files in force, in order, and the rules waiting for their paths", "", func(s *session, _ context.Context, _ string) string {
			files, truncated := s.app.MemoryFiles()
			if len(files) == 0 {
				return "No memory files (see docs/config.md for where gantry looks)."
			}
			var b strings.Builder
			b.WriteString("Memory files, from the broadest to the closest:\n\n")
			for _, f := range files {
				size := "unreadable"
				if f.Size >= 0 {
					size = fmt.Sprintf("%d bytes", f.Size)
				}
				fmt.Fprintf(&b, "- `%s` (%s) — %s", f.Path, size, f.State)
				if len(f.Globs) > 0 {
					fmt.Fprintf(&b, ": `%s`", strings.Join(f.Globs, "`, `"))
				}
				b.WriteString("\n")
			}
			if truncated {
				b.WriteString("\nThe memory was cut at its bound: the rest is left out.\n")
			}
			return b.String()
		}},
		{"mode", "Switch the permission mode: default, accept-edits, plan or yolo", "mode", func(s *session, _ context.Context, mode string) string {
			if mode == "" {
				return fmt.Sprintf("The mode is %s. Switch with /mode default, accept-edits, plan or yolo.", s.app.Mode())
			}
			m, err := permission.ParseMode(mode)
			if err != nil {
				return fmt.Sprintf("Unknown mode %q: choose default, accept-edits, plan or yolo.", mode)
			}
			s.app.SetMode(m) // the ModeChanged it sends tells the client
			return fmt.Sprintf("The mode is now %s.", s.app.Mode())
		}},
		{"model", "Switch the model of the next turns", "model name", func(s *session, _ context.Context, model string) string {
			if model == "" {
				return fmt.Sprintf("The model is %s. Known models: %s.", s.app.Model(), strings.Join(s.models(), ", "))
			}
			if err := s.setOption(optionModel, model); err != nil {
				return fmt.Sprintf("Unknown model %q; known models: %s.", model, strings.Join(s.models(), ", "))
			}
			s.applyModel()
			s.send(sdk.SessionUpdate{ConfigOptionUpdate: &sdk.SessionConfigOptionUpdate{SessionUpdate: "config_option_update", ConfigOptions: s.configOptions()}})
			return fmt.Sprintf("The model is now %s.", model)
		}},
		{"agents", "List the agent definitions and where each came from", "", runAgents},
		{"plugin", "List the enabled plugins (gantry plugin add|remove changes them)", "", runPlugin},
		{"doctor", "What is in force, what was read from gantry's, Claude Code's and Codex's files, and what was ignored", "", runDoctor},
		{"rewind", "Go back to before a prompt: /rewind lists them; /rewind N [files|conversation] [force]", "N [files|conversation] [force]", runRewind},
		{"skills", "List the skills gantry found for this project", "", func(s *session, _ context.Context, _ string) string {
			skills := s.app.Skills()
			if len(skills) == 0 {
				return "No skills were found (see docs/config.md for where gantry looks)."
			}
			var b strings.Builder
			b.WriteString("Skills (run one with /<name>):\n\n")
			for _, sk := range skills {
				fmt.Fprintf(&b, "- `%s` — %s\n", sk.Name, sk.Description)
			}
			return b.String()
		}},
	}
}

// availableCommands lists the commands, the skills and the person's custom commands
// for available_commands_update.
func (s *session) availableCommands() []sdk.AvailableCommand {
	taken := map[string]bool{}
	var out []sdk.AvailableCommand
	add := func(name, about, hint string) {
		if taken[name] {
			return
		}
		taken[name] = true
		c := sdk.AvailableCommand{Name: name, Description: about}
		if hint != "" {
			c.Input = &sdk.AvailableCommandInput{Unstructured: &sdk.UnstructuredCommandInput{Hint: hint}}
		}
		out = append(out, c)
	}
	for _, c := range commands {
		add(c.name, c.about, c.hint)
	}
	for _, sk := range s.app.Skills() {
		add(sk.Name, "Skill: "+sk.Description, "what to do with it")
	}
	for _, c := range s.app.Commands() {
		add(c.Name, c.Description, c.ArgumentHint)
	}
	return out
}

// command runs text when it is one of the commands of the table: handled says it
// was, reply is what to tell the person. Skill commands are turns (App.ExpandPrompt).
func (s *session) command(ctx context.Context, text string) (reply string, handled bool) {
	t := strings.TrimSpace(text)
	if !strings.HasPrefix(t, "/") {
		return "", false
	}
	name, input, _ := strings.Cut(t[1:], " ")
	input = strings.TrimSpace(input)
	for _, c := range commands {
		if c.name == name {
			return c.run(s, ctx, input), true
		}
	}
	return "", false
}

// runRewind is /rewind: without a number, the checkpoints; with one, the files and the
// conversation (or one of them) back to before that prompt. The editor cannot show a
// question here, so files changed outside gantry since its last turn are named and
// kept unless "force" is given.
func runRewind(s *session, ctx context.Context, input string) string {
	f := strings.Fields(input)
	if len(f) == 0 {
		cps, err := s.app.Checkpoints(ctx)
		if err != nil {
			return fmt.Sprintf("The checkpoints could not be read: %v.", err)
		}
		if len(cps) == 0 {
			return "No checkpoint yet: no prompt of this session changed anything."
		}
		var b strings.Builder
		b.WriteString("Checkpoints (the files before each prompt's first change); rewind with `/rewind N`:\n\n")
		for _, c := range cps {
			at := termtext.When(c.At, time.Now())
			if at != "" {
				at = " (" + at + ")"
			}
			fmt.Fprintf(&b, "%d. %s%s — %d file(s) changed after it\n", c.N, strings.ReplaceAll(c.Prompt, "\n", " "), at, len(c.Changes))
		}
		return b.String()
	}
	n, err := strconv.Atoi(f[0])
	if err != nil || n < 1 {
		return fmt.Sprintf("%q is not a checkpoint's number: /rewind lists them.", f[0])
	}
	files, conv, force := true, true, false
	for _, w := range f[1:] {
		switch w {
		case "files":
			conv = false
		case "conversation":
			files = false
		case "force":
			force = true
		default:
			return fmt.Sprintf("/rewind N takes files, conversation or force, not %q.", w)
		}
	}
	var out []string
	if files {
		res, err := s.app.RewindFiles(ctx, n, force)
		if errors.Is(err, app.ErrChangedOutside) {
			return fmt.Sprintf("Nothing was rewound: these files were changed outside gantry since its last turn and would be overwritten: %s. `/rewind %d force` rewinds anyway.", strings.Join(res.Outside, ", "), n)
		}
		if err != nil {
			return fmt.Sprintf("The files were not rewound: %v.", err)
		}
		out = append(out, fmt.Sprintf("Restored %d file(s) as they were before prompt %d.", len(res.Restored), n))
		if len(res.Skipped) > 0 {
			out = append(out, "Not kept by the checkpoint, left as they are: "+strings.Join(res.Skipped, ", ")+".")
		}
	}
	if conv {
		if _, err := s.app.RewindConversation(ctx, n); err != nil {
			return strings.Join(append(out, fmt.Sprintf("The conversation was not rewound: %v.", err)), " ")
		}
		// The App's own notice says where the conversation is now and names the branch.
	}
	return strings.Join(out, " ")
}
