package tool

import (
	"encoding"
	"encoding/json"
	"math"
	"reflect"
	"strings"
)

// flatArgs copies the arguments' object, already parsed by validation, into an
// arguments struct of string, int and bool fields, instead of a second json.Unmarshal
// of the same bytes: most tools' arguments are such a struct, and the second parse
// was a third of decoding a call (docs/benchmarks.md, "Warm queries beyond
// references"). It gives what json.Unmarshal gives, or declines and leaves the call
// to it: for a key that is not exactly a field's name (json.Unmarshal also matches
// other cases), a value of another type, or a number written with a fraction or an
// exponent (which json.Unmarshal refuses for an int, though its parsed value is whole).
type flatArgs struct {
	fields map[string]flatField
}

type flatField struct {
	index int
	kind  reflect.Kind
}

// flatArgsOf returns the copier of t, nil when t is not such a struct.
func flatArgsOf(t reflect.Type) *flatArgs {
	if t.Kind() != reflect.Struct || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Unmarshaler]()) ||
		reflect.PointerTo(t).Implements(reflect.TypeFor[encoding.TextUnmarshaler]()) {
		return nil
	}
	fa := &flatArgs{fields: map[string]flatField{}}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			if f.Anonymous {
				return nil
			}
			continue
		}
		tag, ok := f.Tag.Lookup("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !ok || name == "" || name == "-" || f.Anonymous || strings.Contains(opts, "string") {
			return nil // a name json.Unmarshal matches by its own rules: left to it
		}
		switch f.Type { // the predeclared types only: a named one may decode itself
		case reflect.TypeFor[string](), reflect.TypeFor[int](), reflect.TypeFor[int64](), reflect.TypeFor[bool]():
		default:
			return nil
		}
		if _, dup := fa.fields[name]; dup {
			return nil
		}
		fa.fields[name] = flatField{index: i, kind: f.Type.Kind()}
	}
	return fa
}

// fill sets dst (a pointer to the struct) from m, parsed from input; false means
// json.Unmarshal must decode input instead (dst may then be partly set: the caller
// starts again from a zero value).
func (fa *flatArgs) fill(m map[string]any, input []byte, dst reflect.Value) bool {
	if fa == nil || m == nil {
		return false
	}
	v := dst.Elem()
	checkedNumbers := false
	for k, x := range m {
		f, ok := fa.fields[k]
		if !ok {
			return false
		}
		if x == nil {
			continue // null leaves the field as it is, as json.Unmarshal does
		}
		switch f.kind {
		case reflect.String:
			s, ok := x.(string)
			if !ok {
				return false
			}
			v.Field(f.index).SetString(s)
		case reflect.Bool:
			b, ok := x.(bool)
			if !ok {
				return false
			}
			v.Field(f.index).SetBool(b)
		case reflect.Int, reflect.Int64:
			n, ok := x.(float64)
			if !ok || n != math.Trunc(n) || math.Abs(n) >= 1<<53 {
				return false
			}
			if !checkedNumbers {
				if !wholeNumbers(input) {
					return false
				}
				checkedNumbers = true
			}
			v.Field(f.index).SetInt(int64(n))
		}
	}
	return true
}

// wholeNumbers says whether every number in the JSON text input is written without
// a fraction or an exponent.
func wholeNumbers(input []byte) bool {
	inString, escaped := false, false
	for i, c := range input {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case (c == '.' || c == 'e' || c == 'E') && i > 0 && input[i-1] >= '0' && input[i-1] <= '9':
			return false
		}
	}
	return true
}
