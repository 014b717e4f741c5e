package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/gantry-dev/gantry/internal/llm"
)

// Def describes a tool whose arguments are the struct T. Field tags: `json` names the
// argument (omitempty marks it optional), `jsonschema_description` describes it, read
// whole, and `jsonschema` adds enum, default, minimum and maximum as in
// github.com/invopop/jsonschema (never a description: that tag is split on commas).
type Def[T any] struct {
	Name        string
	Description string
	Level       Level
	Kind        Kind
	// Icon leads the tool's line in a terminal; empty is DefaultIcon.
	Icon string
	// Counter is the per-turn counter the tool's responses add to.
	Counter Counter
	// Principal returns the argument that permission rules match (may be nil).
	Principal func(args T) string
	// Paths returns the absolute paths the call touches (may be nil).
	Paths func(env Env, args T) []string
	// Files says how the call uses its Paths (reads or writes them), so that path
	// rules of one file tool cover all of them.
	Files Files
	// Title returns the line a face shows for a call: a verb and what it acts on (may
	// be nil: the name and the principal). paths are the call's Paths.
	Title func(env Env, args T, paths []string) string
	// Preview says what a call would change, without changing anything (may be nil);
	// write tools set it so that a permission question can show the diff.
	Preview func(ctx context.Context, env Env, args T) Display
	// Check validates arguments beyond their types (may be nil); a non-empty sentence
	// refuses the call before the permission gate.
	Check func(args T) string
	// Aliases are other agents' names for what this tool does (Codex's shell,
	// Claude Code's BashOutput, the text editor's str_replace_based_edit_tool) that
	// are not its ClaudeNames: a call by one is answered with this tool's name.
	Aliases []string
	// ClaudeNames are the names Claude Code gives this tool, which hook matchers may
	// use (nil: it has none).
	ClaudeNames []string
	// Brief: faces show a call as one line, its title and the summary of its result
	// (Summary), not the result's lines (a query whose answer is for the model).
	Brief bool
	// Claude returns how Claude Code would have seen a call, for hooks written for it
	// (may be nil: its own name and input): one view, or one per file.
	Claude func(env Env, args T) []ClaudeView
	// FromClaude is the reverse of Claude: the arguments of a call that a hook written
	// for Claude Code gave back in Claude's field names (its updatedInput, laid over
	// the view it read; c.Tool names that view). A field it cannot take is said with
	// c.Fail. Nil: such an updatedInput is refused.
	FromClaude func(env Env, c *ClaudeArgs) T
	// Code returns the source a call runs (an eval cell) and its language, for faces
	// to show highlighted under the call's title (may be nil: none).
	Code func(args T) (lang, code string)
	// Label is the tool's name for people ("Read a file"), where a client shows one
	// (gantry mcp's tool titles); empty: made from Name.
	Label string
	// Conversation: the tool acts on the conversation it is called in — the model's
	// context, its mode, its person, its own agents — not on the project, so it means
	// nothing to another program's agent and gantry mcp does not serve it.
	Conversation bool
	// Core: the tool is always declared. Every other tool may be deferred: left out of
	// the request until the model's tool search finds it (see Registry.Declare).
	Core bool
	// Family names the group the tool is listed under while it is deferred
	// ("debugger", "language servers"); empty: its own name.
	Family string
	// Formers are the arguments' spellings of an earlier release, still accepted (see
	// Former); the schema names only the current ones.
	Formers []Former
	// Serial: the tool's calls run one at a time, in the response's order, even
	// where read calls would run together (vibe_spawn numbers its workers so).
	Serial bool
	// Ops, for a tool whose calls name an operation, is its table of operations (see
	// Ops): each operation's check, principal, paths, title, preview, level and run,
	// in place of the Def's.
	Ops *Ops[T]
	// Run performs the call.
	Run func(ctx context.Context, env Env, args T) Result
}

type defTool[T any] struct {
	def    Def[T]
	once   sync.Once
	spec   llm.ToolSpec
	schema *derived
	flat   *flatArgs // nil: the arguments are decoded by json.Unmarshal alone
}

// New makes a Tool of a Def. The schema is derived on first use, once a process (once
// a tool for a tool with operations).
func New[T any](d Def[T]) Tool {
	if d.Ops != nil {
		d.Ops.mustValid(d.Name, d.Level, d.Run != nil)
	}
	return &defTool[T]{def: d}
}

func (t *defTool[T]) Name() string { return t.def.Name }
func (t *defTool[T]) Level() Level { return t.def.Level }
func (t *defTool[T]) Kind() Kind   { return t.def.Kind }

func (t *defTool[T]) Info() Info {
	return Info{Level: t.def.Level, Kind: t.def.Kind, Icon: t.def.Icon, Counter: t.def.Counter, Files: t.def.Files, ClaudeNames: t.def.ClaudeNames, Aliases: t.def.Aliases, Brief: t.def.Brief,
		Label: t.def.Label, Conversation: t.def.Conversation, Core: t.def.Core, Family: t.def.Family, Serial: t.def.Serial}
}

func (t *defTool[T]) init() {
	t.once.Do(func() {
		if t.def.Ops != nil {
			t.schema = deriveKnown(reflect.TypeFor[T](), t.def.Ops.fingerprint(), t.def.Ops.patch)
		} else {
			t.schema = derive(reflect.TypeFor[T]())
		}
		t.spec = llm.ToolSpec{Name: t.def.Name, Description: t.def.Description, Schema: t.schema.raw}
		t.flat = flatArgsOf(reflect.TypeFor[T]())
	})
}

func (t *defTool[T]) Spec() llm.ToolSpec {
	t.init()
	return t.spec
}

func (t *defTool[T]) Decode(env Env, input json.RawMessage) (inv Invocation, msg string) {
	t.init()
	defer func() {
		if r := recover(); r != nil {
			inv, msg = Invocation{}, fmt.Sprintf("%s could not read its arguments: %v.", t.def.Name, r)
		}
	}()
	if len(input) == 0 || string(input) == "null" {
		input = json.RawMessage("{}")
	}
	input, note := applyFormers(t.def.Formers, input)
	if note != "" {
		inv.Input = input
	}
	var op *Op[T]
	var parsed map[string]any // the object validation parsed, for flatArgs
	first := func(m map[string]any) (msg string) {
		parsed = m
		if t.def.Ops != nil {
			op, msg = t.def.Ops.pick(t.def.Name, m)
		}
		return msg
	}
	if m := validateWith(t.def.Name, t.schema.parsed(), input, first); m != "" {
		return Invocation{}, withNote(m, " ", note)
	}
	var args T
	if !t.flat.fill(parsed, input, reflect.ValueOf(&args)) {
		args = *new(T)
		if err := json.Unmarshal(input, &args); err != nil {
			return Invocation{}, withNote(describeJSONError(t.def.Name, err), " ", note)
		}
	}
	d := &t.def // the Def, or a copy with the call's operation's functions in place of its own
	if op != nil {
		if op.Check != nil {
			if m := op.Check(args); m != "" {
				return Invocation{}, withNote(m, " ", note)
			}
		}
		d, inv.Op = withOp(t.def, op)
	}
	if d.Check != nil {
		if m := d.Check(args); m != "" {
			return Invocation{}, withNote(m, " ", note)
		}
	}
	d.describe(env, args, &inv)
	if t.def.Claude != nil {
		inv.Claude = t.def.Claude(env, args)
	}
	run := d.Run
	name := t.def.Name
	if preview := d.Preview; preview != nil {
		inv.Preview = func(ctx context.Context) (d Display) {
			defer func() {
				if r := recover(); r != nil {
					d = Display{} // a preview is a courtesy: a fault in it shows nothing
				}
			}()
			return preview(ctx, env, args)
		}
	}
	inv.Run = func(ctx context.Context) (res Result) {
		defer func() {
			if r := recover(); r != nil {
				res = Fail(fmt.Sprintf("%s failed inside gantry (%v); this is a gantry bug, try another way.", name, r))
			}
			res.Text = withNote(res.Text, "\n\n", note)
		}()
		return run(ctx, env, args)
	}
	return inv, ""
}

// withNote ends text with note (a former spelling's sentence), after sep.
func withNote(text, sep, note string) string {
	switch {
	case note == "":
		return text
	case text == "":
		return note
	}
	return text + sep + note
}

// describe fills what a face shows of a call of these arguments: its principal, the
// paths it touches, its title and the code it runs (Decode and Draft alike).
func (d *Def[T]) describe(env Env, args T, inv *Invocation) {
	if d.Principal != nil {
		inv.Principal = d.Principal(args)
	}
	if d.Paths != nil {
		inv.Paths = d.Paths(env, args)
	}
	if d.Title != nil {
		inv.Title = d.Title(env, args, inv.Paths)
	}
	if d.Code != nil {
		if lang, code := d.Code(args); code != "" {
			inv.Code = &Code{Lang: lang, Text: code}
		}
	}
}
