package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
)

// decodeClaudeSettings reads a Claude Code settings file entry by entry: a key, a list
// item or an env value whose shape gantry cannot read is skipped with a sentence in
// skipped naming its key path and what was wrong, and the rest of the file is taken.
// Only a file that is not a JSON object is an error.
func decodeClaudeSettings(data []byte) (f claudeSettingsFile, skipped []string, err error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		return f, nil, err
	}
	skip := func(key, why string) { skipped = append(skipped, fmt.Sprintf("%s was skipped: %s", key, why)) }
	decodeLenient(top, reflect.ValueOf(&f).Elem(), "", skip)
	if raw, ok := top["hooks"]; ok {
		var unknown []string
		f.Hooks, unknown = decodeClaudeHooks(raw, skip)
		if len(unknown) > 0 {
			skipped = append(skipped, "gantry does not know these hook keys and ignores them: "+strings.Join(unknown, "; "))
		}
	}
	return f, skipped, nil
}

// decodeLenient decodes each key of raw into the field of v (a struct) its json tag
// names, at the key path at. A field that does not decode is left empty and said,
// except a list or an object of values, whose good items are kept and the others
// said one by one. The hooks are read by decodeClaudeHooks.
func decodeLenient(raw map[string]json.RawMessage, v reflect.Value, at string, skip func(key, why string)) {
	t := v.Type()
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("json"), ",")
		msg, ok := raw[name]
		if !ok || name == "" || name == "-" || (at == "" && name == "hooks") {
			continue
		}
		key, field := at+name, v.Field(i)
		if field.Kind() == reflect.Struct {
			var inner map[string]json.RawMessage
			if err := json.Unmarshal(msg, &inner); err != nil {
				skip(key, "it is "+jsonKind(msg)+", where Claude Code has an object")
				continue
			}
			decodeLenient(inner, field, key+".", skip)
			continue
		}
		if json.Unmarshal(msg, field.Addr().Interface()) == nil {
			continue
		}
		field.SetZero()
		switch field.Kind() {
		case reflect.Slice:
			var items []json.RawMessage
			if json.Unmarshal(msg, &items) != nil {
				skip(key, "it is "+jsonKind(msg)+", where Claude Code has a list")
				continue
			}
			for j, item := range items {
				e := reflect.New(field.Type().Elem())
				if err := json.Unmarshal(item, e.Interface()); err != nil {
					skip(fmt.Sprintf("%s[%d]", key, j), "it is "+jsonKind(item)+", where Claude Code has "+kindOf(field.Type().Elem()))
					continue
				}
				field.Set(reflect.Append(field, e.Elem()))
			}
		case reflect.Map:
			var items map[string]json.RawMessage
			if json.Unmarshal(msg, &items) != nil {
				skip(key, "it is "+jsonKind(msg)+", where Claude Code has an object")
				continue
			}
			field.Set(reflect.MakeMap(field.Type()))
			for _, k := range sortedKeys(items) {
				e := reflect.New(field.Type().Elem())
				if err := json.Unmarshal(items[k], e.Interface()); err != nil {
					skip(key+"."+k, "its value is "+jsonKind(items[k])+", where Claude Code has "+kindOf(field.Type().Elem()))
					continue
				}
				field.SetMapIndex(reflect.ValueOf(k), e.Elem())
			}
		default:
			skip(key, "it is "+jsonKind(msg)+", where Claude Code has "+kindOf(field.Type()))
		}
	}
}

// claudeHookKeys are the keys of one hook gantry knows (rewakeMessage and
// rewakeSummary are asyncRewake's); claudeGroupKeys those of a matcher group.
var (
	claudeHookKeys  = []string{"type", "command", "prompt", "timeout", "if", "async", "asyncRewake", "once", "shell", "rewakeMessage", "rewakeSummary", "statusMessage"}
	claudeGroupKeys = []string{"matcher", "hooks"}
)

// decodeClaudeHooks reads the hooks object of a settings file group by group and
// hook by hook: what cannot be read is skipped and said, the rest kept. unknown are
// the key paths of the keys gantry does not know, each with what it is.
func decodeClaudeHooks(raw json.RawMessage, skip func(key, why string)) (out map[string][]claudeMatcher, unknown []string) {
	var events map[string]json.RawMessage
	if json.Unmarshal(raw, &events) != nil {
		skip("hooks", "it is "+jsonKind(raw)+", where Claude Code has an object of events")
		return nil, nil
	}
	out = map[string][]claudeMatcher{}
	for _, event := range sortedKeys(events) {
		var groups []json.RawMessage
		if json.Unmarshal(events[event], &groups) != nil {
			skip("hooks."+event, "it is "+jsonKind(events[event])+", where Claude Code has a list of matcher groups")
			continue
		}
		list := []claudeMatcher{}
		for i, g := range groups {
			key := fmt.Sprintf("hooks.%s[%d]", event, i)
			var group map[string]json.RawMessage
			if json.Unmarshal(g, &group) != nil {
				skip(key, "it is "+jsonKind(g)+", where Claude Code has a matcher group ({\"matcher\": …, \"hooks\": […]})")
				continue
			}
			_, hasHooks := group["hooks"]
			_, hasCommand := group["command"]
			_, hasType := group["type"]
			if !hasHooks && (hasCommand || hasType) {
				skip(key, "it is a hook written without its matcher group, an old shape Claude Code no longer reads; write it as "+flatFix(group))
				continue
			}
			var m claudeMatcher
			if msg, ok := group["matcher"]; ok && json.Unmarshal(msg, &m.Matcher) != nil {
				skip(key, "its matcher is "+jsonKind(msg)+", where Claude Code has a string (a tool name or a regular expression)")
				continue
			}
			var hooks []json.RawMessage
			if json.Unmarshal(group["hooks"], &hooks) != nil {
				skip(key, "its hooks are "+jsonKind(group["hooks"])+", where Claude Code has a list of hooks")
				continue
			}
			for _, k := range sortedKeys(group) {
				switch {
				case k == "if":
					unknown = append(unknown, key+".if (an if belongs on each hook; Claude Code ignores it on the matcher group too, so these hooks run for every call their matcher selects)")
				case !slices.Contains(claudeGroupKeys, k):
					unknown = append(unknown, key+"."+k)
				}
			}
			for j, h := range hooks {
				hk := fmt.Sprintf("%s.hooks[%d]", key, j)
				var keys map[string]json.RawMessage
				if json.Unmarshal(h, &keys) != nil {
					skip(hk, "it is "+jsonKind(h)+", where Claude Code has a hook object")
					continue
				}
				// One hook is read as the only hook of a group, into the group's type.
				var one claudeMatcher
				if err := json.Unmarshal(append(append([]byte(`{"hooks":[`), h...), ']', '}'), &one); err != nil {
					skip(hk, hookProblem(err))
					continue
				}
				for _, k := range sortedKeys(keys) {
					if !slices.Contains(claudeHookKeys, k) {
						unknown = append(unknown, hk+"."+k)
					}
				}
				m.Hooks = append(m.Hooks, one.Hooks...)
			}
			list = append(list, m)
		}
		out[event] = list
	}
	return out, unknown
}

// hookProblem says what is wrong in a hook the decoder refused.
func hookProblem(err error) string {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		field := te.Field[strings.LastIndex(te.Field, ".")+1:]
		return fmt.Sprintf("its %s is %s, where Claude Code has %s", field, jsonKindName(te.Value), kindOf(te.Type))
	}
	return fmt.Sprintf("it cannot be read (%v)", err)
}

// jsonKind names the kind of a JSON value in a sentence: "a string", "an object", …
func jsonKind(raw json.RawMessage) string {
	b := bytes.TrimSpace(raw)
	if len(b) == 0 {
		return "missing"
	}
	switch b[0] {
	case '{':
		return "an object"
	case '[':
		return "a list"
	case '"':
		return "a string"
	case 't', 'f':
		return "true or false"
	case 'n':
		return "null"
	}
	return "a number"
}

// kindOf names what a Go type holds, in a sentence.
func kindOf(t reflect.Type) string {
	switch t.Kind() {
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "true or false"
	case reflect.Float32, reflect.Float64, reflect.Int, reflect.Int64:
		return "a number"
	case reflect.Slice:
		return "a list"
	}
	return "an object"
}

// hookShape says what keeps a hook of type typ from running, or "".
func hookShape(typ, command, prompt string, timeout float64) string {
	switch {
	case typ == "command" && strings.TrimSpace(command) == "":
		return "a command hook needs a command"
	case typ == "prompt" && strings.TrimSpace(prompt) == "":
		return "a prompt hook needs a prompt"
	case timeout < 0:
		return fmt.Sprintf("its timeout must not be negative, not %v", timeout)
	}
	return ""
}

// flatFix is the matcher group a hook of the old flat shape should be written as,
// with the tool its matcher object named ({"tool_name": "Bash"}) as the matcher.
func flatFix(group map[string]json.RawMessage) string {
	var old struct {
		Tool string `json:"tool_name"`
	}
	var name string
	if json.Unmarshal(group["matcher"], &old) == nil && old.Tool != "" {
		name = old.Tool
	} else if json.Unmarshal(group["matcher"], &name) != nil {
		name = ""
	}
	if name == "" {
		return `{"hooks": [{"type": "command", "command": …}]}`
	}
	m, _ := json.Marshal(name)
	return `{"matcher": ` + string(m) + `, "hooks": [{"type": "command", "command": …}]}`
}
