package task

import (
	"strconv"
	"strings"

	"github.com/invopop/jsonschema"

	"github.com/gantry-dev/gantry/internal/tool"
)

// taskID is a task id as the model sends it: "t3", "3" or 3 all name t3.
type taskID string

// JSONSchema declares the id as a string or an integer.
func (taskID) JSONSchema() *jsonschema.Schema { return tool.StringOrIntSchema() }

// UnmarshalJSON accepts a string or a whole number and normalises it.
func (id *taskID) UnmarshalJSON(b []byte) error {
	s, err := tool.DecodeStringOrInt(b)
	*id = taskID(normalize(s))
	return err
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
