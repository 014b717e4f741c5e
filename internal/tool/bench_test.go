package tool

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"testing"
)

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

// BenchmarkDecode decodes a valid bash call and a valid edit_file call of 20 edits, as
// the agent does for every tool call (docs/tools.md, "Libraries measured").
func BenchmarkDecode(b *testing.B) {
	run := func(context.Context, Env, benchBash) Result { return Result{} }
	runEdit := func(context.Context, Env, benchEditFile) Result { return Result{} }
	bash := New(Def[benchBash]{Name: "bash", Run: run})
	edit := New(Def[benchEditFile]{Name: "edit_file", Run: runEdit})
	editIn := benchEditInput()
	b.Run("bash", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, msg := bash.Decode(Env{Cwd: "/w"}, json.RawMessage(benchBashInput)); msg != "" {
				b.Fatal(msg)
			}
		}
	})
	b.Run("edit20", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, msg := edit.Decode(Env{Cwd: "/w"}, editIn); msg != "" {
				b.Fatal(msg)
			}
		}
	})
}

// BenchmarkValidate is the schema check alone of the same calls.
func BenchmarkValidate(b *testing.B) {
	_, bashNode := SchemaOf(reflect.TypeFor[benchBash]())
	_, editNode := SchemaOf(reflect.TypeFor[benchEditFile]())
	editIn := benchEditInput()
	for _, c := range []struct {
		name string
		f    func() string
	}{
		{"bash", func() string { return validate("bash", bashNode, json.RawMessage(benchBashInput)) }},
		{"edit20", func() string { return validate("edit_file", editNode, editIn) }},
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
