package task

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// taskID is a task id as the model sends it: "t3", "3" or 3 all name t3.
type taskID string

// JSONSchema declares the id as a string or an integer.
func (taskID) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}}
}

// UnmarshalJSON accepts a string or a whole number and normalises it.
func (id *taskID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		var n json.Number
		if json.Unmarshal(b, &n) != nil {
			return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[string]()}
		}
		s = n.String()
	}
	*id = taskID(normalize(s))
	return nil
}

// normalize turns "3", " T3 " and "t3" into "t3"; other strings are only trimmed.
func normalize(s string) string {
	s = strings.TrimSpace(s)
	digits := strings.TrimPrefix(strings.TrimPrefix(s, "t"), "T")
	if n, err := strconv.Atoi(digits); err == nil && n >= 0 && digits != "" && digits[0] != '+' && digits[0] != '-' {
		return "t" + strconv.Itoa(n)
	}
	return s
}

// number is the n of an id "t<n>", or 0.
func number(id string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(id, "t"))
	if err != nil || !strings.HasPrefix(id, "t") || n < 0 {
		return 0
	}
	return n
}

// jsonKind names the kind of a JSON value that is not an id, for the error message.
func jsonKind(b []byte) string {
	switch b[0] {
	case 't', 'f':
		return "boolean"
	case '{':
		return "object"
	case '[':
		return "array"
	default:
		return "number"
	}
}
