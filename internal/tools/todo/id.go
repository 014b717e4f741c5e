package todo

import (
	"github.com/invopop/jsonschema"

	"github.com/gantry-dev/gantry/internal/tool"
)

// itemID is an item's id as the model sends it: a string or a whole number (the seed
// allows both), always held as a string.
type itemID string

// JSONSchema declares the id as a string or an integer.
func (itemID) JSONSchema() *jsonschema.Schema { return tool.StringOrIntSchema() }

// UnmarshalJSON accepts a string or a whole number.
func (id *itemID) UnmarshalJSON(b []byte) error {
	s, err := tool.DecodeStringOrInt(b)
	*id = itemID(s)
	return err
}
