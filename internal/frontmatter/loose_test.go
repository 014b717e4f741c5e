package frontmatter

import (
	"reflect"
	"testing"
)

// Loose keeps each key's text, reads block and flow lists as lists and a "|" block as
// its text, and says when text comes before the first key.
func TestLoose(t *testing.T) {
	block := "# a comment\nname: scan\nhint: \"<path>\" [\"area\"]\ntools:\n  - Read\n  - 'Bash(git:*)'\n\nflow: [a, \"b c\"]\nnote: |\n  first line\n    indented\nquoted: \"x: y\"\nrelated:\n  commands: [a, b]\n"
	fields, ok := Loose(block, nil)
	want := map[string]any{
		"name":    "scan",
		"hint":    `"<path>" ["area"]`,
		"tools":   []any{"Read", "Bash(git:*)"},
		"flow":    []any{"a", "b c"},
		"note":    "first line\n  indented",
		"quoted":  "x: y",
		"related": "commands: [a, b]",
	}
	if !ok || !reflect.DeepEqual(fields, want) {
		t.Errorf("Loose = %#v, %v; want %#v", fields, ok, want)
	}
	if _, ok := Loose("words first\nname: x\n", nil); ok {
		t.Error("text before the first key is not a loose block")
	}
	if f, ok := Loose("name: x\nother: y\n", func(k string) bool { return k == "name" }); !ok || f["name"] != "x\nother: y" {
		t.Errorf("a key isKey refuses continues the one before: %#v", f)
	}
}
