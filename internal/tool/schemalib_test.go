package tool

// A comparison of the hand-written validator with github.com/google/jsonschema-go's
// (docs/tools.md, "Libraries measured").

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	gjs "github.com/google/jsonschema-go/jsonschema"
)

// libSchema is what a tool would hold with jsonschema-go: the resolved schema, and
// the node for the sentence (jsonschema-go's errors name schema paths, not the
// argument, and carry no array index).
type libSchema struct {
	rs   *gjs.Resolved
	node *schemaNode
}

func libSchemaOf(t reflect.Type) libSchema {
	raw, node := SchemaOf(t)
	var s gjs.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		panic(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		panic(err)
	}
	return libSchema{rs, node}
}

// validateLib is validate with jsonschema-go deciding: nulls are dropped first (gantry
// reads null as "not given"), and a failure is described by check.
func validateLib(tool string, s libSchema, input json.RawMessage) string {
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return fmt.Sprintf("The arguments of %s are not valid JSON (%v); send one JSON object.", tool, err)
	}
	if _, ok := v.(map[string]any); !ok {
		return fmt.Sprintf("The arguments of %s must be a JSON object, not %s.", tool, jsonKind(v))
	}
	dropNulls(v)
	if err := s.rs.Validate(v); err == nil {
		return ""
	}
	if msg := check(tool, "", s.node, v); msg != "" {
		return msg
	}
	return fmt.Sprintf("The arguments of %s do not match its schema.", tool)
}

func dropNulls(v any) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				dropNulls(e)
			}
		}
	case []any:
		for _, e := range x {
			dropNulls(e)
		}
	}
}

// libDecode is Decode's validation and decoding with validateLib.
func libDecode[T any](name string, s libSchema, input json.RawMessage) (T, string) {
	var args T
	if m := validateLib(name, s, input); m != "" {
		return args, m
	}
	if err := json.Unmarshal(input, &args); err != nil {
		return args, describeJSONError(name, err)
	}
	return args, ""
}

// The arguments of bash and edit_file, as in internal/tools.
type benchBash struct {
	Command         string `json:"command" jsonschema:"description=The shell command to run with bash -c."`
	Timeout         int    `json:"timeout,omitempty" jsonschema:"description=Seconds before the command and its processes are stopped.,minimum=1,maximum=600"`
	Cwd             string `json:"cwd,omitempty" jsonschema:"description=Working directory for this call."`
	RunInBackground bool   `json:"run_in_background,omitempty" jsonschema:"description=Start the command in the background."`
}

type benchEdit struct {
	Old string `json:"old" jsonschema:"description=Exact text to replace."`
	New string `json:"new" jsonschema:"description=Replacement text."`
}

type benchEditFile struct {
	Path   string      `json:"path" jsonschema:"description=Path of an existing file."`
	Edits  []benchEdit `json:"edits" jsonschema:"description=Replacements."`
	DryRun bool        `json:"dry_run,omitempty" jsonschema:"description=Report what would change and write nothing.,default=false"`
}

const benchBashInput = `{"command":"go test -race ./internal/tool/ ./internal/tools/fs/ 2>&1 | tail -40","timeout":300}`

func benchEditInput() json.RawMessage {
	var edits []benchEdit
	for i := range 20 {
		edits = append(edits, benchEdit{
			Old: fmt.Sprintf("\tif err := step%d(ctx, cfg); err != nil {\n\t\treturn err\n\t}\n", i),
			New: fmt.Sprintf("\tif err := step%d(ctx, cfg); err != nil {\n\t\treturn fmt.Errorf(\"step %d: %%w\", err)\n\t}\n", i, i),
		})
	}
	b, _ := json.Marshal(benchEditFile{Path: "internal/app/run.go", Edits: edits})
	return b
}

func BenchmarkDecode(b *testing.B) {
	run := func(context.Context, Env, benchBash) Result { return Result{} }
	runEdit := func(context.Context, Env, benchEditFile) Result { return Result{} }
	bash := New(Def[benchBash]{Name: "bash", Run: run})
	edit := New(Def[benchEditFile]{Name: "edit_file", Run: runEdit})
	bashLib := libSchemaOf(reflect.TypeFor[benchBash]())
	editLib := libSchemaOf(reflect.TypeFor[benchEditFile]())
	editIn := benchEditInput()
	b.Run("bash/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, msg := bash.Decode(Env{Cwd: "/w"}, json.RawMessage(benchBashInput)); msg != "" {
				b.Fatal(msg)
			}
		}
	})
	b.Run("bash/lib", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, msg := libDecode[benchBash]("bash", bashLib, json.RawMessage(benchBashInput)); msg != "" {
				b.Fatal(msg)
			}
		}
	})
	b.Run("edit20/hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, msg := edit.Decode(Env{Cwd: "/w"}, editIn); msg != "" {
				b.Fatal(msg)
			}
		}
	})
	b.Run("edit20/lib", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, msg := libDecode[benchEditFile]("edit_file", editLib, editIn); msg != "" {
				b.Fatal(msg)
			}
		}
	})
}

func BenchmarkValidate(b *testing.B) {
	_, bashNode := SchemaOf(reflect.TypeFor[benchBash]())
	_, editNode := SchemaOf(reflect.TypeFor[benchEditFile]())
	bashLib := libSchemaOf(reflect.TypeFor[benchBash]())
	editLib := libSchemaOf(reflect.TypeFor[benchEditFile]())
	editIn := benchEditInput()
	for _, c := range []struct {
		name string
		f    func() string
	}{
		{"bash/hand", func() string { return validate("bash", bashNode, json.RawMessage(benchBashInput)) }},
		{"bash/lib", func() string { return validateLib("bash", bashLib, json.RawMessage(benchBashInput)) }},
		{"edit20/hand", func() string { return validate("edit_file", editNode, editIn) }},
		{"edit20/lib", func() string { return validateLib("edit_file", editLib, editIn) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if msg := c.f(); msg != "" {
					b.Fatal(msg)
				}
			}
		})
	}
}

// TestValidateLibAgrees checks that both validators accept and refuse the same inputs.
func TestValidateLibAgrees(t *testing.T) {
	_, node := SchemaOf(reflect.TypeFor[args]())
	lib := libSchemaOf(reflect.TypeFor[args]())
	for _, in := range []string{`{"command":"x"}`, `{"command":"x","timeout":null}`, `{"command":"x","timeout":900}`, `{"command":"x","edits":[{"old":"a"}]}`} {
		a, b := validate("t", node, json.RawMessage(in)), validateLib("t", lib, json.RawMessage(in))
		if a != b {
			t.Errorf("%s: hand %q, lib %q", in, a, b)
		}
	}
}
