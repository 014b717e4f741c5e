package todo

import (
	"encoding/json"
	"fmt"
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
		return fmt.Errorf("an id must be a string or a whole number, not %s", b)
	}
	if _, err := strconv.ParseInt(n.String(), 10, 64); err != nil {
		return fmt.Errorf("an id must be a string or a whole number, not %s", b)
	}
	*id = itemID(n.String())
	return nil
}
