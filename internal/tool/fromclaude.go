package tool

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
)

// claudeMapper is a tool that can take its arguments back from Claude's view of a
// call (see Def.FromClaude).
type claudeMapper interface {
	fromClaude(env Env, name string, in map[string]any) (json.RawMessage, []string, string)
}

// FromClaude turns a hook's updatedInput, written in Claude Code's field names for the
// view it read (Write's file_path and content, Edit's old_string, …), into the
// arguments of t. The update is laid over the view, as Claude Code's hooks may give
// only the fields they change. A sentence says why it cannot be taken.
func FromClaude(t Tool, env Env, view ClaudeView, update json.RawMessage) (json.RawMessage, string) {
	var changed map[string]any
	if err := json.Unmarshal(update, &changed); err != nil {
		return nil, fmt.Sprintf("its updatedInput is not a JSON object (%v).", err)
	}
	in := maps.Clone(view.Input)
	if in == nil {
		in = map[string]any{}
	}
	maps.Copy(in, changed)
	for u := t; u != nil; {
		switch x := u.(type) {
		case claudeMapper:
			mapped, read, msg := x.fromClaude(env, view.Name, in)
			for k := range changed {
				if !slices.Contains(read, k) {
					// A field Claude's view does not have: the hook may have written
					// gantry's own names (path, edits), which are taken as they are.
					if _, bad := t.Decode(env, update); bad == "" {
						return update, ""
					}
					break
				}
			}
			return mapped, msg
		case interface{ Unwrap() Tool }:
			u = x.Unwrap() // a wrapper (diagnostics after writes) takes the same arguments
		default:
			u = nil
		}
	}
	return nil, fmt.Sprintf("%s cannot take its arguments from Claude's %s; give them in gantry's names.", t.Name(), view.Name)
}

func (t *defTool[T]) fromClaude(env Env, name string, in map[string]any) (json.RawMessage, []string, string) {
	if t.def.FromClaude == nil {
		return nil, nil, fmt.Sprintf("%s cannot take its arguments from Claude's %s; give them in gantry's names.", t.def.Name, name)
	}
	c := &ClaudeArgs{Tool: name, In: in}
	args := t.def.FromClaude(env, c)
	if msg := c.Err(); msg != "" {
		return nil, c.read, msg
	}
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, c.read, fmt.Sprintf("%s's arguments from Claude's %s could not be written as JSON (%v).", t.def.Name, name, err)
	}
	return raw, c.read, ""
}

// ClaudeArgs reads the fields of a Claude view's tool_input, for a Def's FromClaude:
// each getter takes a field by Claude's name, and the first field of the wrong type
// is kept as the sentence Err returns.
type ClaudeArgs struct {
	Tool string // Claude's tool name, for sentences
	In   map[string]any
	err  string
	read []string // the fields asked for
}

// get is the field name, noted as read.
func (c *ClaudeArgs) get(name string) (any, bool) {
	c.read = append(c.read, name)
	v, ok := c.In[name]
	return v, ok && v != nil
}

// String is the field name as a string ("" when absent).
func (c *ClaudeArgs) String(name string) string {
	v, ok := c.get(name)
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		c.fail(name, "a string")
	}
	return s
}

// Int is the field name as a whole number (0 when absent).
func (c *ClaudeArgs) Int(name string) int {
	v, ok := c.get(name)
	if !ok {
		return 0
	}
	f, ok := v.(float64)
	if !ok || f != float64(int(f)) {
		c.fail(name, "a whole number")
		return 0
	}
	return int(f)
}

// Bool is the field name as a boolean (false when absent).
func (c *ClaudeArgs) Bool(name string) bool {
	v, ok := c.get(name)
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		c.fail(name, "true or false")
	}
	return b
}

// Objects is the field name as a list of objects (nil when absent).
func (c *ClaudeArgs) Objects(name string) []map[string]any {
	v, ok := c.get(name)
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		c.fail(name, "a list of objects")
		return nil
	}
	out := make([]map[string]any, 0, len(list))
	for _, e := range list {
		m, ok := e.(map[string]any)
		if !ok {
			c.fail(name, "a list of objects")
			return nil
		}
		out = append(out, m)
	}
	return out
}

// Fail keeps a sentence of the caller's own (the first one wins).
func (c *ClaudeArgs) Fail(sentence string) {
	if c.err == "" {
		c.err = sentence
	}
}

func (c *ClaudeArgs) fail(name, want string) {
	c.Fail(fmt.Sprintf("Claude's %s needs %q to be %s.", c.Tool, name, want))
}

// Err is the first sentence of a field of the wrong type or of Fail, or "".
func (c *ClaudeArgs) Err() string { return c.err }
