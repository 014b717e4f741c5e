package tool

// Kept after measuring it against github.com/google/jsonschema-go's validator: docs/tools.md, "Libraries measured".

import (
	"encoding/json"
	"fmt"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// schemaNode is the part of a JSON schema that argument validation needs.
type schemaNode struct {
	Type       string                 `json:"type"`
	Properties map[string]*schemaNode `json:"properties"`
	Required   []string               `json:"required"`
	Items      *schemaNode            `json:"items"`
	Enum       []any                  `json:"enum"`
	Minimum    *float64               `json:"minimum"`
	Maximum    *float64               `json:"maximum"`
	// AdditionalProperties is the schema of a map's values (map[string]string).
	AdditionalProperties *schemaNode `json:"additionalProperties"`
	// OneOf lists the alternatives of a value of several types (StringOrIntSchema).
	OneOf []*schemaNode `json:"oneOf"`

	// names is Properties' keys in order, the order the fields are checked in (set by
	// SchemaOf: an object's arguments are checked without sorting them per call).
	names []string
}

// index sets names throughout the schema.
func (s *schemaNode) index() {
	if s == nil {
		return
	}
	s.names = make([]string, 0, len(s.Properties))
	for k, sub := range s.Properties {
		s.names = append(s.names, k)
		sub.index()
	}
	sort.Strings(s.names)
	s.Items.index()
	s.AdditionalProperties.index()
	for _, alt := range s.OneOf {
		alt.index()
	}
}

// UnmarshalJSON reads a schema, or a boolean schema (an any field's true) as one that
// checks nothing.
func (s *schemaNode) UnmarshalJSON(b []byte) error {
	if string(b) == "true" || string(b) == "false" {
		*s = schemaNode{}
		return nil
	}
	type plain schemaNode
	return json.Unmarshal(b, (*plain)(s))
}

// SchemaOf derives the JSON schema of a struct type, inlined (no $ref), and returns it
// with the parsed node used for validation. A field without omitempty is required.
func SchemaOf(t reflect.Type) (json.RawMessage, *schemaNode) {
	d := derive(t)
	return d.raw, d.parsed()
}

// schemas holds each type's derived schema, once a process: the Apps of one process
// (gantry mcp's sessions, subagents' registries, tests) share them.
var schemas sync.Map // reflect.Type → *derived

// derived is a type's schema as JSON, and its node parsed on first use: a request
// needs only the JSON, validation the node (the first call of the tool).
type derived struct {
	raw  json.RawMessage
	once sync.Once
	node *schemaNode
}

func derive(t reflect.Type) *derived {
	if d, ok := schemas.Load(t); ok {
		return d.(*derived)
	}
	d, _ := schemas.LoadOrStore(t, deriveKnown(t, "", nil))
	return d.(*derived)
}

// deriveWith derives t's schema, changed by patch (when not nil) before it is
// written: a tool's operations table sets its operation argument's enum so. It is not
// kept in schemas, which hold the type's own.
func deriveWith(t reflect.Type, patch func(*jsonschema.Schema)) *derived {
	r := jsonschema.Reflector{DoNotReference: true, ExpandedStruct: true, AllowAdditionalProperties: true}
	s := r.ReflectFromType(t)
	s.Version = ""
	s.ID = ""
	if patch != nil {
		patch(s)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		panic(fmt.Sprintf("tool: schema of %v: %v", t, err)) // a programming error
	}
	return &derived{raw: raw}
}

func (d *derived) parsed() *schemaNode {
	d.once.Do(func() {
		var node schemaNode
		if err := json.Unmarshal(d.raw, &node); err != nil {
			panic(fmt.Sprintf("tool: schema %s: %v", d.raw, err))
		}
		node.index()
		d.node = &node
	})
	return d.node
}

// validate checks input against the schema and returns one sentence naming the first
// offending field, or "".
func validate(tool string, s *schemaNode, input json.RawMessage) string {
	return validateWith(tool, s, input, nil)
}

// validateWith is validate with first, which looks at the arguments' object before
// the schema does (a tool's operations table refuses an unknown operation so).
func validateWith(tool string, s *schemaNode, input json.RawMessage, first func(map[string]any) string) string {
	v, err := parseArgs(input)
	if err != nil {
		return fmt.Sprintf("The arguments of %s are not valid JSON (%v); send one JSON object.", tool, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		return fmt.Sprintf("The arguments of %s must be a JSON object, not %s.", tool, jsonKind(v))
	}
	if first != nil {
		if msg := first(m); msg != "" {
			return msg
		}
	}
	return check(tool, "", s, v)
}

func check(tool, path string, s *schemaNode, v any) string {
	if s == nil {
		return ""
	}
	field := path
	if field == "" {
		field = "arguments"
	}
	if v == nil && path != "" {
		// null stands for "not given"; required fields are checked by the parent.
		return ""
	}
	if len(s.OneOf) > 0 {
		// The alternatives gantry declares have distinct types, so "one of" is "any of".
		wants := make([]string, 0, len(s.OneOf))
		for _, alt := range s.OneOf {
			msg := check(tool, path, alt, v)
			if msg == "" {
				return ""
			}
			if _, isObject := v.(map[string]any); isObject && alt.Type == "object" {
				return msg // an object of the object alternative: what is wrong inside it
			}
			wants = append(wants, describeType(alt.Type))
		}
		return fmt.Sprintf("%s: argument %q must be %s, not %s.", tool, field, strings.Join(wants, " or "), jsonValue(v))
	}
	want := s.Type
	switch want {
	case "object":
		m, ok := v.(map[string]any)
		if !ok {
			return wrongType(tool, field, "an object", v)
		}
		for _, req := range s.Required {
			if x, ok := m[req]; !ok || x == nil {
				return fmt.Sprintf("%s needs the argument %q, which is missing.", tool, join(path, req))
			}
		}
		if s.AdditionalProperties == nil && len(s.names) == len(s.Properties) {
			// A property the schema does not name is ignored: the named ones are
			// checked, in order.
			for _, k := range s.names {
				if x, ok := m[k]; ok {
					if msg := check(tool, join(path, k), s.Properties[k], x); msg != "" {
						return msg
					}
				}
			}
			break
		}
		keys := make([]string, 0, len(m))
		for k := range m {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			// A property the schema does not name is ignored, unless the object is a map.
			sub, ok := s.Properties[k]
			if !ok {
				sub = s.AdditionalProperties
			}
			if msg := check(tool, join(path, k), sub, m[k]); msg != "" {
				return msg
			}
		}
	case "array":
		a, ok := v.([]any)
		if !ok {
			return wrongType(tool, field, "an array", v)
		}
		for i, x := range a {
			if x == nil {
				return fmt.Sprintf("%s: argument %q must not be null.", tool, fmt.Sprintf("%s[%d]", field, i))
			}
			if msg := check(tool, fmt.Sprintf("%s[%d]", field, i), s.Items, x); msg != "" {
				return msg
			}
		}
	case "string":
		if _, ok := v.(string); !ok {
			return wrongType(tool, field, "a string", v)
		}
	case "boolean":
		if _, ok := v.(bool); !ok {
			return wrongType(tool, field, "true or false", v)
		}
	case "integer", "number":
		f, ok := v.(float64)
		if !ok {
			return wrongType(tool, field, "a number", v)
		}
		if want == "integer" && f != float64(int64(f)) {
			return fmt.Sprintf("%s: argument %q must be a whole number, not %v.", tool, field, f)
		}
		if s.Minimum != nil && f < *s.Minimum {
			return fmt.Sprintf("%s: argument %q must be at least %v, not %v.", tool, field, *s.Minimum, f)
		}
		if s.Maximum != nil && f > *s.Maximum {
			return fmt.Sprintf("%s: argument %q must be at most %v, not %v.", tool, field, *s.Maximum, f)
		}
	}
	if len(s.Enum) > 0 {
		for _, e := range s.Enum {
			if e == v {
				return ""
			}
		}
		opts := make([]string, len(s.Enum))
		for i, e := range s.Enum {
			opts[i] = fmt.Sprintf("%q", fmt.Sprint(e))
		}
		return fmt.Sprintf("%s: argument %q must be one of %s, not %q.", tool, field, strings.Join(opts, ", "), fmt.Sprint(v))
	}
	return ""
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

func wrongType(tool, field, want string, v any) string {
	return fmt.Sprintf("%s: argument %q must be %s, not %s.", tool, field, want, jsonKind(v))
}

// describeType names what a value of a JSON schema type is, for a sentence.
func describeType(t string) string {
	switch t {
	case "object":
		return "an object"
	case "array":
		return "an array"
	case "string":
		return "a string"
	case "boolean":
		return "true or false"
	case "integer":
		return "a whole number"
	case "number":
		return "a number"
	}
	return "a value of type " + t
}

// jsonValue shows a value given: a number, true or false as written, a string quoted,
// else its kind.
func jsonValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return jsonKind(v)
}

func jsonKind(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		if len(x) > 40 {
			x = x[:40] + "…"
		}
		return fmt.Sprintf("the string %q", x)
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// describeJSONError turns a json.Unmarshal error into a sentence for the model.
func describeJSONError(tool string, err error) string {
	var te *json.UnmarshalTypeError
	if as(err, &te) {
		f := te.Field
		if f == "" {
			f = "arguments"
		}
		return fmt.Sprintf("%s: argument %q must be %s, not a JSON %s.", tool, f, te.Type.Kind(), te.Value)
	}
	return fmt.Sprintf("The arguments of %s could not be read: %v.", tool, err)
}
