package tool

import (
	"encoding/json"
	"fmt"
	"strconv"
)

// Former is an argument's spelling of an earlier release, still accepted for one
// release: a call that uses it runs as if it had used the current spelling, and its
// result ends with one sentence saying the old one is deprecated. The schema the model
// reads names only the current spelling. Formers are top-level arguments.
type Former struct {
	// Name is the old spelling; New the argument it became. They are the same when
	// only the unit changed, and then Over says which values are in the old unit.
	Name, New string
	// Scale converts a number given in the old way into the new unit (0.001:
	// milliseconds to seconds); 0 leaves the value as it is.
	Scale float64
	// Over: when Name is New, a number above Over is in the old unit — a value the new
	// unit's maximum forbids (a task_output timeout over 600 is in milliseconds).
	Over float64
	// Unit names the new unit ("seconds") and OldUnit the old one, for the sentence;
	// empty when the unit did not change.
	Unit, OldUnit string
}

// note is the sentence a result ends with when the call used f.
func (f Former) note() string {
	switch {
	case f.Name == f.New:
		return fmt.Sprintf("(Note: %s in %s is deprecated; give it in %s.)", f.New, f.OldUnit, f.Unit)
	case f.Unit != "":
		return fmt.Sprintf("(Note: %s is deprecated; use %s, in %s.)", f.Name, f.New, f.Unit)
	}
	return fmt.Sprintf("(Note: %s is deprecated; use %s.)", f.Name, f.New)
}

// applyFormers rewrites input's former spellings into the current ones and returns
// the sentences to add to the result ("" when none was used). Input that is not a
// JSON object is returned as it is, for validation to name what is wrong with it.
func applyFormers(formers []Former, input json.RawMessage) (json.RawMessage, string) {
	if len(formers) == 0 {
		return input, ""
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(input, &m); err != nil || m == nil {
		return input, ""
	}
	note := ""
	for _, f := range formers {
		v, ok := m[f.Name]
		if !ok {
			continue
		}
		if f.Name == f.New {
			n, err := strconv.ParseFloat(string(v), 64)
			if err != nil || n <= f.Over {
				continue // not a number in the old unit: validation judges it
			}
			m[f.New] = scale(v, f.Scale)
		} else {
			delete(m, f.Name)
			if _, both := m[f.New]; !both {
				m[f.New] = scale(v, f.Scale)
			}
		}
		if note != "" {
			note += " "
		}
		note += f.note()
	}
	if note == "" {
		return input, ""
	}
	out, err := json.Marshal(m)
	if err != nil {
		return input, "" // cannot happen: m holds valid JSON values
	}
	return out, note
}

// scale multiplies a JSON number by k; anything else, or k of 0, is kept.
func scale(v json.RawMessage, k float64) json.RawMessage {
	if k == 0 {
		return v
	}
	n, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return v
	}
	return json.RawMessage(strconv.FormatFloat(n*k, 'g', -1, 64))
}
