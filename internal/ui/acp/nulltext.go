package acp

import (
	"bytes"
	"encoding/json"
)

// withNullOldText writes "oldText": null into each diff of a message that has no
// oldText. The SDK's types omit a nil oldText; the protocol's tool-call docs show a
// new file's diff with an explicit null, and some clients look for it.
func withNullOldText(line []byte) []byte {
	if !bytes.Contains(line, []byte(`"type":"diff"`)) {
		return line
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var msg any
	if dec.Decode(&msg) != nil {
		return line
	}
	if !nullDiffs(msg) {
		return line
	}
	out, err := json.Marshal(msg)
	if err != nil {
		return line
	}
	return append(out, '\n')
}

// nullDiffs sets the missing oldText of every diff object under v; it reports
// whether it changed anything.
func nullDiffs(v any) bool {
	changed := false
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "diff" {
			if _, ok := v["oldText"]; !ok {
				v["oldText"] = nil
				changed = true
			}
		}
		for _, x := range v {
			changed = nullDiffs(x) || changed
		}
	case []any:
		for _, x := range v {
			changed = nullDiffs(x) || changed
		}
	}
	return changed
}
