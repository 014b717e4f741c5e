package tool

import (
	"crypto/sha256"
	"encoding"
	"encoding/hex"
	"encoding/json"
	"reflect"
	"strings"
	"sync"

	"github.com/invopop/jsonschema"
)

// Deriving a tool's schema by reflection (invopop/jsonschema, then its JSON) costs
// about 6 ms of CPU for a session's tools, paid in every gantry process before its
// first request. The schemas of gantry's own tools are derived once at build time
// instead, into schemas_known.go (written by TestKnownSchemas in internal/app), and
// found here by a key that names the argument type and fingerprints its shape: the
// fields, their types and tags, the schema methods each type has, and an operations
// table's names and About lines. A type whose shape changed since has another key, so
// a stale entry is never used: that schema is derived live, as before, and the test
// says the table is out of date. What the shape cannot see — the body of a type's own
// JSONSchema method, the reflector's settings, the library's version — only the test
// checks: it runs with internal/app's tests.

// schemaHooks are the methods by which a type changes its own schema (invopop's
// hooks) or its JSON (and so the reflector's view of it).
var schemaHooks = []reflect.Type{
	reflect.TypeFor[interface{ JSONSchema() *jsonschema.Schema }](),
	reflect.TypeFor[interface{ JSONSchemaExtend(*jsonschema.Schema) }](),
	reflect.TypeFor[interface{ JSONSchemaAlias() any }](),
	reflect.TypeFor[interface{ JSONSchemaProperty(string) any }](),
	reflect.TypeFor[json.Marshaler](),
	reflect.TypeFor[encoding.TextMarshaler](),
}

// knownSeen holds the types derived in this process by key, for KnownSchemaTable.
var knownSeen sync.Map // key → knownType

type knownType struct {
	t     reflect.Type
	patch func(*jsonschema.Schema) // an operations table's, or nil
}

// knownKey is the key of t's schema changed by an operations table of fingerprint ops
// ("" for none).
func knownKey(t reflect.Type, ops string) string {
	var b strings.Builder
	shape(t, &b, map[reflect.Type]bool{})
	b.WriteString("|ops:")
	b.WriteString(ops)
	sum := sha256.Sum256([]byte(b.String()))
	return t.PkgPath() + "." + t.Name() + "#" + hex.EncodeToString(sum[:8])
}

// shape writes what t's derived schema depends on that reflection can see.
func shape(t reflect.Type, b *strings.Builder, seen map[reflect.Type]bool) {
	b.WriteString(t.PkgPath())
	b.WriteByte('.')
	b.WriteString(t.String())
	b.WriteByte('(')
	// Not the method set by name: reflect.Type.Method keeps every exported method of
	// every type in the binary (the linker can no longer drop them), 36 MB more.
	for _, mt := range []reflect.Type{t, reflect.PointerTo(t)} {
		for _, h := range schemaHooks {
			if mt.Implements(h) {
				b.WriteString(h.String())
				b.WriteByte(',')
			}
		}
	}
	b.WriteByte(')')
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array:
		shape(t.Elem(), b, seen)
	case reflect.Map:
		shape(t.Key(), b, seen)
		shape(t.Elem(), b, seen)
	case reflect.Struct:
		if seen[t] {
			return
		}
		seen[t] = true
		for i := range t.NumField() {
			f := t.Field(i)
			b.WriteString("{" + f.Name + " `" + string(f.Tag) + "`")
			if f.Anonymous {
				b.WriteString(" embedded")
			}
			shape(f.Type, b, seen)
			b.WriteByte('}')
		}
	}
}

// deriveKnown is deriveWith, taking the schema from the build-time table when it holds
// it; ops fingerprints patch's operations table ("" without one).
func deriveKnown(t reflect.Type, ops string, patch func(*jsonschema.Schema)) *derived {
	if d := knownDerived(t, ops, patch); d != nil {
		return d
	}
	return deriveWith(t, patch)
}

// knownDerived is t's schema from the build-time table, or nil.
func knownDerived(t reflect.Type, ops string, patch func(*jsonschema.Schema)) *derived {
	key := knownKey(t, ops)
	knownSeen.LoadOrStore(key, knownType{t: t, patch: patch})
	raw, ok := knownSchemas[key]
	if !ok {
		return nil
	}
	return &derived{raw: json.RawMessage(raw)}
}

// KnownSchemaTable derives afresh, by reflection, the schema of every type this
// process looked up in the build-time table (schemaknown.go), by key. TestKnownSchemas
// compares it with the table and writes the table from it.
func KnownSchemaTable() map[string]string {
	out := map[string]string{}
	knownSeen.Range(func(k, v any) bool {
		kt := v.(knownType)
		out[k.(string)] = string(deriveWith(kt.t, kt.patch).raw)
		return true
	})
	return out
}

// KnownSchemas is the build-time table (for TestKnownSchemas).
func KnownSchemas() map[string]string { return knownSchemas }

// fingerprint is what patch takes of the operations table: its argument, and each
// operation's name and About line.
func (o *Ops[T]) fingerprint() string {
	var b strings.Builder
	b.WriteString(o.Arg)
	for _, op := range o.List {
		b.WriteString("|" + op.Name + ":" + op.About)
	}
	return b.String()
}
