package tool

import (
	"encoding/json"
	"reflect"
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"
)

// StringOrIntSchema is the schema of an id the model may send as a string or as a
// whole number (the seeds allow both).
func StringOrIntSchema() *jsonschema.Schema {
	return &jsonschema.Schema{OneOf: []*jsonschema.Schema{{Type: "string"}, {Type: "integer"}}}
}

// DecodeStringOrInt reads such an id: a string (trimmed) or a whole number, as a
// string. Anything else is a *json.UnmarshalTypeError naming what it was.
func DecodeStringOrInt(b []byte) (string, error) {
	var s string
	if err := json.Unmarshal(b, &s); err == nil {
		return strings.TrimSpace(s), nil
	}
	var n json.Number
	if err := json.Unmarshal(b, &n); err != nil {
		return "", &json.UnmarshalTypeError{Value: rawKind(b), Type: reflect.TypeFor[string]()}
	}
	if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
		return "", &json.UnmarshalTypeError{Value: "fractional number", Type: reflect.TypeFor[string]()}
	}
	return n.String(), nil
}

// rawKind names the kind of a raw JSON value that is not an id, for the error message.
func rawKind(b []byte) string {
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
