package todo

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// itemID is an item's id as the model sends it: a string or a whole number (the seed
// allows both), always held as a string.
type itemID string

// JSONSchema declares the id as a string or an integer.
func (itemID) JSONSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}}
}

// UnmarshalJSON accepts a string or a whole number.
func (id *itemID) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		*id = itemID(strings.TrimSpace(s))
		return nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return &json.UnmarshalTypeError{Value: jsonKind(b), Type: reflect.TypeFor[string]()}
	}
	if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
		return &json.UnmarshalTypeError{Value: "fractional number", Type: reflect.TypeFor[string]()}
	}
	*id = itemID(n.String())
	return nil
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
