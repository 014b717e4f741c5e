package tool

import (
	"encoding/json"
)

// Draft is what faces show of a call of t whose arguments the model is still
// writing: input is what came of them so far, closed into JSON
// (llm.ClosePartialJSON). The tool's own definition reads them (its title, its
// principal, its paths, its code) leniently: nothing is checked, nothing runs, and
// what cannot be read yet is left out. A tool whose arguments are not a Go struct (an
// MCP server's) is shown by its name alone.
func Draft(t Tool, env Env, input json.RawMessage) Call {
	for x := t; x != nil; {
		switch d := x.(type) {
		case interface {
			draft(env Env, input json.RawMessage) Invocation
		}:
			return Describe(t, d.draft(env, input))
		case interface{ Unwrap() Tool }:
			x = d.Unwrap()
		default:
			x = nil
		}
	}
	return Describe(t, Invocation{})
}

// draft decodes input as far as it goes, without the schema's checks nor the tool's
// Check, and describes it; a fault in the tool's functions leaves the part out.
func (t *defTool[T]) draft(env Env, input json.RawMessage) (inv Invocation) {
	defer func() {
		if r := recover(); r != nil {
			inv = Invocation{} // a draft is a courtesy: a fault shows the name alone
		}
	}()
	if len(input) == 0 {
		return inv
	}
	input, _ = applyFormers(t.def.Formers, input)
	var args T
	// An argument of the wrong type is left at its zero value; the others are read.
	_ = json.Unmarshal(input, &args)
	d := &t.def // the Def, or a copy with the operation's functions once its name is written
	if t.def.Ops != nil {
		var m map[string]any
		_ = json.Unmarshal(input, &m)
		op, _ := t.def.Ops.pick(t.def.Name, m)
		if op == nil {
			return Invocation{} // which operation it is is not written yet: the name alone
		}
		d, inv.Op = withOp(t.def, op)
	}
	d.describe(env, args, &inv)
	return inv
}
