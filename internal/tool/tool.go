// Package tool defines what a gantry tool is: its metadata (name, level, ACP kind,
// principal argument, paths touched), its JSON schema derived from a Go struct, the
// decoding of the model's arguments into that struct with errors written for the model,
// and the Registry that decides which tools are declared.
package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Level is how much a tool may change the world. It decides which surfaces see a tool.
type Level int

// The levels, in increasing order of power.
const (
	LevelRead  Level = iota // no side effect
	LevelWrite              // changes files
	LevelExec               // starts or drives a process
)

// ParseLevel reads "read", "write" or "exec".
func ParseLevel(s string) (Level, error) {
	switch s {
	case "read":
		return LevelRead, nil
	case "write":
		return LevelWrite, nil
	case "exec":
		return LevelExec, nil
	}
	return LevelExec, fmt.Errorf("unknown level %q: choose read, write or exec", s)
}

func (l Level) String() string {
	switch l {
	case LevelRead:
		return "read"
	case LevelWrite:
		return "write"
	default:
		return "exec"
	}
}

// Kind is the ACP tool-call kind of a tool.
type Kind string

// The ACP tool-call kinds.
const (
	KindRead       Kind = "read"
	KindEdit       Kind = "edit"
	KindDelete     Kind = "delete"
	KindMove       Kind = "move"
	KindSearch     Kind = "search"
	KindExecute    Kind = "execute"
	KindThink      Kind = "think"
	KindFetch      Kind = "fetch"
	KindSwitchMode Kind = "switch_mode"
	KindOther      Kind = "other"
)

// Files says how a tool uses the paths of its calls, for path rules: a path rule of
// one file-writing tool covers every tool that writes files, and one of a file-reading
// tool every tool that reads files by path.
type Files int

// How a tool uses its paths.
const (
	FilesNone  Files = iota // no paths, or paths the rules do not look at
	FilesRead               // reads the files (or searches the folders) it names
	FilesWrite              // writes, moves or deletes the files it names
)

func (f Files) String() string {
	switch f {
	case FilesRead:
		return "reads files"
	case FilesWrite:
		return "writes files"
	}
	return "no files"
}

// Env is what a call knows of the session it runs in.
type Env struct {
	// Cwd is the session's working directory, absolute.
	Cwd string
	// SessionID names the session (background task files live under it).
	SessionID string
	// Editor, when set, is the face's access to the files it has open (see Editor);
	// Terminals the face's live terminals. Both are nil outside editors.
	Editor    Editor
	Terminals Terminals
	// Files checks each file the call reads or writes against the session's path
	// rules (see FileGuard); nil allows everything. The loop sets it per call.
	Files FileGuard
}

// Abs resolves p against the working directory; a leading "~/" (or "~" alone) is
// the home folder, as a shell would read it.
func (e Env) Abs(p string) string {
	if p == "" {
		return e.Cwd
	}
	p = ExpandHome(p)
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(e.Cwd, p)
}

// ExpandHome replaces a leading "~/" (or a lone "~") by the home folder; other paths,
// and all paths when the home folder is unknown, are returned as they are.
func ExpandHome(p string) string {
	if p != "~" && !strings.HasPrefix(p, "~/") {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		return p
	}
	return filepath.Join(home, p[1:])
}

// Display is what a face shows of a result, apart from what the model reads, so that
// faces never parse tool output.
type Display struct {
	// Preview replaces Text in the face's preview lines when set.
	Preview string
	// Diff is a unified diff of the change the call made (or would make).
	Diff string
	// Hidden asks the face not to echo the output (read_skill).
	Hidden bool
	// Note is a short line for the face, e.g. an image's size.
	Note string
	// Changes are the text files the call changed (or would change), whole, for faces
	// that show a reviewable diff (ACP). Binary files and files too large to hold are
	// left out.
	Changes []FileChange
	// Location is the place in a file the result points at (where a debugger
	// stopped): faces show it with the call (ACP: as its location).
	Location *Location
	// Diagnostics are the language server's diagnostics a write introduced, one
	// "path:line: severity: message [code]" each (also in Text, for the model): faces
	// show them under the call, whatever else they show of it.
	Diagnostics []string
}

// Location is a line of a file.
type Location struct {
	Path string // absolute
	Line int    // 1-based; 0 when the file alone is meant
}

// DiagnosticsHeading introduces, in a write's Text and in faces that show text, the
// diagnostics of Display.Diagnostics.
const DiagnosticsHeading = "New diagnostics from the language server:"

// FileChange is one text file's content before and after a call.
type FileChange struct {
	Path    string // absolute
	Created bool   // Old is empty because the file did not exist
	Deleted bool   // New is empty because the file was removed
	Old     string
	New     string
}

// Result is the outcome of a call.
type Result struct {
	// Text is what the model reads.
	Text string
	// IsError marks an ordinary failure (missing file, non-zero exit, refusal).
	IsError bool
	// Images go to the model as image blocks beside Text.
	Images []llm.Image
	// Display is for faces only.
	Display Display
	// Blocked are the programs the exec supervisor refused to run during the call.
	Blocked []Blocked
	// Found names the deferred tools the call loaded (tool_search): declared to the
	// model from the next request on, and kept with the result so that a resumed
	// session declares them too.
	Found []string
	// Preview is how much the model reads of a Text the bound cuts (see Fit): the
	// zero value is the bound; a command's output asks for ShellPreview.
	Preview Preview
	// Room, when larger than the session's bound, replaces it for this result: a tool
	// that bounds its own text more generously sets it (read_skill loads a long skill
	// whole, see skill.WholeBound).
	Room int
}

// Blocked is one program a deny rule kept from running: the rule, and the command as
// the rule saw it.
type Blocked struct {
	Rule    string
	Command string
}

// Fail returns an error result with the sentence s.
func Fail(s string) Result { return Result{Text: s, IsError: true} }

// Invocation is a decoded call, ready for the permission gate and then to run.
type Invocation struct {
	// Principal is the argument permission rules match against (command, path, URL…).
	Principal string
	// Paths are the absolute paths the call touches (ACP locations).
	Paths []string
	// Code is the source the call runs, for faces (see Def.Code).
	Code *Code
	// Title is the line a face shows for the call: a verb and what it acts on
	// ("Edit src/a.go", the command). Empty: the tool's name and principal.
	Title string
	// Preview, when set, says what the call would change without changing anything
	// (the diff of a write), for a permission question. Nil for tools that change
	// nothing a diff can show.
	Preview func(ctx context.Context) Display
	// Run performs the call. It must honour ctx and never panic for bad input.
	Run func(ctx context.Context) Result
	// Input is the arguments as the call runs with them when the decoder rewrote what
	// the model sent (a former spelling, see Former), for hooks and faces; nil: as sent.
	Input json.RawMessage
	// Claude is how Claude Code would have seen the call (see Def.Claude): one view,
	// or one per file for a tool that acts on several. Nil: under the tool's own name,
	// with its input as it is.
	Claude []ClaudeView
	// Op is what the call's operation says of it, for a tool with operations (see
	// Ops): its level, which the person's question follows, and its kind and counter.
	// Nil: the tool's Info says all.
	Op *OpInfo
}

// HookSubjectKey is the key under which the loop gives the hooks of a tool event the
// call's HookSubject, beside the stdin fields (the hook runner takes it out).
const HookSubjectKey = "\x00subject"

// HookSubject is the call a tool event's hooks concern, with what hooks written for
// Claude Code match and read: its Claude names and Claude's view of the call.
type HookSubject struct {
	Name        string
	ClaudeNames []string
	Claude      []ClaudeView
}

// ClaudeView is a call as Claude Code names it, for hooks written for Claude Code:
// its tool name (Bash, Write, Edit, …) and tool_input with Claude's field names
// (file_path, old_string, new_string, content, command, pattern, …).
type ClaudeView struct {
	Name string
	// Formerly are the names Claude Code gave the call before (Task, for Agent):
	// a hook matcher naming one selects the view as its Name does.
	Formerly []string
	Input    map[string]any
}

// Counter is the class of the per-turn counter a tool's responses add to.
type Counter int

// The counters of seed 000: ⚙ commands, 📝 file operations, 📖 skills.
const (
	CountNone Counter = iota
	CountCommand
	CountFileOp
	CountSkill
)

// DefaultIcon is the icon of a tool that names none.
const DefaultIcon = "🔧"

// Info is what a tool says of itself apart from any call: what faces show and what
// the gate and the loop need.
type Info struct {
	Level Level
	Kind  Kind
	// Icon leads the tool's line in a terminal ("🛠️ bash: …").
	Icon string
	// Counter is the per-turn counter its responses add to.
	Counter Counter
	// Files says how its calls use their paths, for path rules.
	Files Files
	// Aliases are other agents' names for it (see Def.Aliases).
	Aliases []string
	// ClaudeNames are the names Claude Code gives the tool (Bash; Edit, MultiEdit):
	// a hook matcher written for Claude Code selects it by any of them.
	ClaudeNames []string
	// Brief: a call shows as one line, its title and its result's Summary.
	Brief bool
	// Label is the tool's name for people (see Def.Label; LabelOf fills it in).
	Label string
	// Conversation: the tool acts on its conversation, not on the project (see
	// Def.Conversation).
	Conversation bool
	// Core: the tool is always declared, never deferred (see Def.Core).
	Core bool
	// Family names the group a deferred tool is listed under in the system prompt
	// ("debugger", "MCP server github"); empty: its own name.
	Family string
	// Server names the MCP server of an MCP tool ("" for gantry's own tools), and
	// Defer is that server's own rule ("auto", "never", "always"; "": the session's).
	Server, Defer string
	// Serial: its calls run one at a time, in order (see Def.Serial).
	Serial bool
}

// LabelOf is the tool's name for people: its Label, else its name as words
// ("read_file": "Read file").
func LabelOf(t Tool) string {
	if l := t.Info().Label; l != "" {
		return l
	}
	w := strings.ReplaceAll(t.Name(), "_", " ")
	if w == "" {
		return w
	}
	return strings.ToUpper(w[:1]) + w[1:]
}

// Tool is one tool gantry can declare to the model.
type Tool interface {
	Name() string
	Level() Level
	Kind() Kind
	// Info is the rest of what the tool's definition says of it.
	Info() Info
	// Spec is the declaration sent to the model.
	Spec() llm.ToolSpec
	// Decode checks and decodes the model's arguments. A non-empty sentence means the
	// arguments were malformed; it is written for the model and names the field.
	Decode(env Env, input json.RawMessage) (Invocation, string)
}

// Call is everything a face may show of one tool call, all of it from the tool's
// definition: no face needs to know a tool by its name.
type Call struct {
	Name      string
	Title     string
	Icon      string
	Principal string
	// Level is what the call may change: its operation's level for a tool with
	// operations (a debug stack reads), else the tool's. The person is asked by it.
	Level   Level
	Kind    Kind
	Counter Counter
	// Locations are the absolute paths the call touches.
	Locations []string
	// Brief: show the call as one line, its title and its result's Summary.
	Brief bool
	// Code is the source the call runs, shown highlighted under its title (nil: none).
	Code *Code
}

// Code is source a call runs, and its language (a Markdown fence's name).
type Code struct {
	Lang, Text string
}

// maxTitle bounds a call's title, in characters.
const maxTitle = 200

// Describe is what faces show of a call of t decoded as inv.
func Describe(t Tool, inv Invocation) Call {
	info := t.Info()
	c := Call{Name: t.Name(), Icon: info.Icon, Principal: inv.Principal, Level: info.Level, Kind: info.Kind,
		Counter: info.Counter, Locations: inv.Paths, Title: inv.Title, Brief: info.Brief, Code: inv.Code}
	if op := inv.Op; op != nil {
		c.Level = min(op.Level, info.Level) // an operation never rises above its tool
		if op.Kind != "" {
			c.Kind = op.Kind
		}
		if op.Counter != CountNone {
			c.Counter = op.Counter
		}
	}
	if c.Icon == "" {
		c.Icon = DefaultIcon
	}
	if c.Title == "" {
		c.Title = c.Name
		if p := strings.TrimSpace(inv.Principal); p != "" {
			c.Title += ": " + p
		}
	}
	c.Title = OneLine(c.Title, maxTitle)
	return c
}

// Summary is one line of a result for a face that shows a call briefly: the tool's
// note, else the result's only line, else its first line and how many follow.
func Summary(r Result) string {
	if r.Display.Note != "" {
		return OneLine(r.Display.Note, maxTitle)
	}
	text := strings.TrimSpace(r.Text)
	if text == "" {
		return "(no output)"
	}
	first, rest, more := strings.Cut(text, "\n")
	if !more {
		return OneLine(first, maxTitle)
	}
	return fmt.Sprintf("%s (+%d more lines)", OneLine(first, maxTitle), strings.Count(rest, "\n")+1)
}

// Unknown is what faces show of a call of a tool this session does not declare (or of
// one whose arguments could not be read, when t is nil).
func Unknown(name string) Call {
	return Call{Name: name, Title: name, Icon: DefaultIcon, Kind: KindOther, Level: LevelExec}
}

// OneLine is s on one line for a title: its first line (" …" when more follow),
// trimmed, and cut at max characters.
func OneLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i]) + " …"
	}
	if r := []rune(s); max > 0 && len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}

// PathsTitle is a title made of a verb and the paths a call touches, relative to the
// working directory when they are inside it: "Edit src/a.go", "Patch a.go, b.go".
// With no path it is the verb and fallback.
func PathsTitle(verb string, env Env, paths []string, fallback string) string {
	if len(paths) == 0 {
		return strings.TrimSpace(verb + " " + fallback)
	}
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = p
		if r, err := filepath.Rel(env.Cwd, p); err == nil && r != ".." && !strings.HasPrefix(r, "../") {
			names[i] = r
		}
	}
	return verb + " " + strings.Join(names, ", ")
}
