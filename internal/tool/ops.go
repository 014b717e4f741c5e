package tool

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/editdist"

	"github.com/invopop/jsonschema"
)

// Op is one operation of a tool whose calls name what they do in one argument
// (debug's "launch", computer's "click"): everything that differs by operation is
// one entry of the tool's Ops table. A nil function is the Def's.
type Op[T any] struct {
	Name string
	// About describes the operation in a few words, for the schema's description of
	// the argument that names it (may be empty).
	About string
	// Level is what the operation may change; the question asked of a person follows
	// it (a debug stack reads, a launch runs code). At most the Def's Level, which
	// decides where the tool is declared at all.
	Level Level
	// Kind is the call's ACP kind ("": the Def's); Counter its per-turn counter
	// (CountNone: the Def's).
	Kind    Kind
	Counter Counter
	// Check refuses, in one sentence, arguments this operation cannot take (may be
	// nil); the Def's Check runs after it.
	Check     func(a T) string
	Principal func(a T) string
	Paths     func(env Env, a T) []string
	Title     func(env Env, a T, paths []string) string
	Preview   func(ctx context.Context, env Env, a T) Display
	// Run performs a call of the operation (nil: the Def's Run).
	Run func(ctx context.Context, env Env, a T) Result
}

// Ops is a tool's table of operations (Def.Ops): validation, dispatch, what a face
// shows of a call, the level its question is asked at and the schema's list of the
// operations all come from it.
type Ops[T any] struct {
	// Arg is the required string argument that names the operation ("operation",
	// "action"); the schema's enum of it is the table's names, in order.
	Arg  string
	List []Op[T]
}

// OpInfo is what a call's operation says of it beside the tool's Info (see
// Invocation.Op): Describe and the gate read it in place of the tool's.
type OpInfo struct {
	Name    string
	Level   Level
	Kind    Kind
	Counter Counter
}

// withOp is d with op's functions in place of its own, where op has them, and what op
// says of the call (its name, level, kind and counter).
func withOp[T any](d Def[T], op *Op[T]) (*Def[T], *OpInfo) {
	if op.Principal != nil {
		d.Principal = op.Principal
	}
	if op.Paths != nil {
		d.Paths = op.Paths
	}
	if op.Title != nil {
		d.Title = op.Title
	}
	if op.Preview != nil {
		d.Preview = op.Preview
	}
	if op.Run != nil {
		d.Run = op.Run
	}
	return &d, &OpInfo{Name: op.Name, Level: op.Level, Kind: op.Kind, Counter: op.Counter}
}

// find returns the operation of that name.
func (o *Ops[T]) find(name string) (*Op[T], bool) {
	for i := range o.List {
		if o.List[i].Name == name {
			return &o.List[i], true
		}
	}
	return nil, false
}

// Names are the operations' names, in the table's order.
func (o *Ops[T]) Names() []string {
	names := make([]string, len(o.List))
	for i, op := range o.List {
		names[i] = op.Name
	}
	return names
}

// mustValid panics on a table that is a programming error: no operations, a name
// twice, an operation above its tool's level, or one that nothing runs.
func (o *Ops[T]) mustValid(tool string, level Level, run bool) {
	if o.Arg == "" || len(o.List) == 0 {
		panic(fmt.Sprintf("tool %s: an Ops table needs its Arg and operations", tool))
	}
	seen := map[string]bool{}
	for _, op := range o.List {
		switch {
		case op.Name == "" || seen[op.Name]:
			panic(fmt.Sprintf("tool %s: operation %q is empty or named twice", tool, op.Name))
		case op.Level > level:
			panic(fmt.Sprintf("tool %s: operation %s is %s, above the tool's level %s", tool, op.Name, op.Level, level))
		case op.Run == nil && !run:
			panic(fmt.Sprintf("tool %s: operation %s has no Run, nor has the tool", tool, op.Name))
		}
		seen[op.Name] = true
	}
}

// unknown is the sentence for a call naming no operation of the table: the nearest
// name when one is close, and the valid ones.
func (o *Ops[T]) unknown(tool, given string) string {
	hint := ""
	if near := Nearest(given, o.Names()); near != "" {
		hint = fmt.Sprintf(" (did you mean %q?)", near)
	}
	return fmt.Sprintf("%s has no %s %q%s; it has %s.", tool, o.Arg, given, hint, listWords(o.Names()))
}

// pick reads the operation of the input's arguments m, or says why there is none
// ("" with a nil op when the argument is missing: the schema's required check says
// so).
func (o *Ops[T]) pick(tool string, m map[string]any) (*Op[T], string) {
	v, ok := m[o.Arg]
	if !ok || v == nil {
		return nil, ""
	}
	name, ok := v.(string)
	if !ok {
		return nil, "" // the schema names the wrong type
	}
	op, ok := o.find(name)
	if !ok {
		return nil, o.unknown(tool, name)
	}
	return op, ""
}

// patch sets the schema's enum of the operation argument to the table's names, its
// description to the operations' About lines, and makes it required.
func (o *Ops[T]) patch(s *jsonschema.Schema) {
	if s.Properties == nil {
		return
	}
	p, ok := s.Properties.Get(o.Arg)
	if !ok {
		panic(fmt.Sprintf("tool: the arguments have no %q for the operations", o.Arg))
	}
	p.Enum = make([]any, len(o.List))
	var about []string
	for i, op := range o.List {
		p.Enum[i] = op.Name
		if op.About != "" {
			about = append(about, op.Name+": "+op.About)
		}
	}
	if len(about) > 0 {
		p.Description = strings.TrimSpace(p.Description + " " + strings.Join(about, "; ") + ".")
	}
	if !slices.Contains(s.Required, o.Arg) {
		s.Required = append(s.Required, o.Arg)
	}
}

// listWords joins names as a sentence does: "a, b and c".
func listWords(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1]
}

// Nearest is the name of names closest to given when it is close enough to be a slip
// (a typo, a missing underscore, a prefix), else "".
func Nearest(given string, names []string) string {
	g := strings.ToLower(strings.TrimSpace(given))
	best, bestD := "", -1
	for _, n := range names {
		d := editdist.Distance(g, strings.ToLower(n))
		if strings.HasPrefix(n, g) && len(g) >= 3 {
			d = min(d, 1)
		}
		if bestD < 0 || d < bestD {
			best, bestD = n, d
		}
	}
	if bestD < 0 || bestD > max(2, len([]rune(g))/3) {
		return ""
	}
	return best
}
