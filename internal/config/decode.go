package config

import (
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"
)

// FileError is a problem in a configuration file: Path:Line: Msg.
type FileError struct {
	Path string
	Line int // 0 when unknown
	Key  string
	Msg  string
}

// Error returns the problem as one line (a line break in Msg, which may quote the
// file, is written as \n).
func (e *FileError) Error() string {
	msg := strings.ReplaceAll(e.Msg, "\n", `\n`)
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %s", e.Path, e.Line, msg)
	}
	return fmt.Sprintf("%s: %s", e.Path, msg)
}

// decodeFile decodes the YAML of the file at path strictly into a layer.
func decodeFile(path string, data []byte) (l *layer, pos *positions, err error) {
	defer func() {
		// The YAML library is not ours: should it panic on some input, that is one more
		// malformed file, not a crash of gantry.
		if r := recover(); r != nil {
			l, pos, err = nil, nil, &FileError{Path: path, Msg: fmt.Sprintf("cannot be decoded as YAML (%v)", r)}
		}
	}()
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return nil, nil, syntaxError(path, err)
	}
	var body ast.Node
	for _, doc := range f.Docs {
		b := documentBody(doc)
		if b == nil {
			continue // an empty document (or only comments) sets nothing
		}
		if body != nil {
			return nil, nil, &FileError{Path: path, Line: line(b.GetToken()), Msg: "more than one YAML document"}
		}
		body = b
	}
	l, pos = &layer{sections: make([]any, len(sections))}, indexPositions(body)
	if body == nil {
		return l, pos, nil
	}
	// The file decodes into layer's keys and the registered sections' at once, so that
	// its first problem is reported, wherever it is, and anchors reach every key.
	fl := newFileLayer()
	if err := yaml.NodeToValue(body, fl.Interface(), yaml.Strict()); err != nil {
		return nil, nil, decodeError(path, pos, err)
	}
	l = splitFileLayer(fl)
	if err := checkScalars(path, pos); err != nil {
		return nil, nil, err
	}
	return l, pos, nil
}

// documentBody returns the content of doc, or nil when it has none.
func documentBody(doc *ast.DocumentNode) ast.Node {
	if doc == nil || doc.Body == nil {
		return nil
	}
	if _, null := unwrap(doc.Body).(*ast.NullNode); null {
		return nil
	}
	return doc.Body
}

func line(tk *token.Token) int { return posOf(tk).line }

func syntaxError(path string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		return &FileError{Path: path, Line: line(ye.GetToken()), Msg: ye.GetMessage()}
	}
	return &FileError{Path: path, Msg: err.Error()}
}

// decodeError turns an error of the YAML decoder into a FileError naming the key.
func decodeError(path string, pos *positions, err error) error {
	var (
		unknown  *yaml.UnknownFieldError
		typ      *yaml.TypeError
		node     *yaml.UnexpectedNodeTypeError
		overflow *yaml.OverflowError
		want     *wantError
		ye       yaml.Error
	)
	fe := func(tk *token.Token, msg func(key string) string) error {
		p, _ := pos.pathAt(tk)
		key := p.String()
		return &FileError{Path: path, Line: line(tk), Key: key, Msg: msg(key)}
	}
	switch {
	case errors.As(err, &unknown):
		return fe(unknown.Token, func(key string) string {
			return fmt.Sprintf("unknown key %q%s", key, suggest(key))
		})
	case errors.As(err, &want):
		return fe(want.tok, func(key string) string { return fmt.Sprintf("key %q must be %s", key, want.want) })
	case errors.As(err, &typ):
		return fe(typ.Token, mustBe)
	case errors.As(err, &node):
		return fe(node.Token, mustBe)
	case errors.As(err, &overflow):
		return fe(overflow.Token, func(key string) string { return fmt.Sprintf("key %q: number out of range", key) })
	case errors.As(err, &ye):
		return &FileError{Path: path, Line: line(ye.GetToken()), Msg: ye.GetMessage()}
	}
	return &FileError{Path: path, Msg: err.Error()}
}

// checkScalars rejects what the decoder converts silently: a quoted or fractional
// number where an integer is wanted, a quoted number where a number is.
func checkScalars(path string, pos *positions) error {
	for _, s := range pos.scalars {
		switch s.node.(type) {
		case *ast.NullNode, *ast.AliasNode:
			continue // null sets nothing; an alias was checked where its anchor is
		}
		t := typeAt(fileLayerType(), s.path)
		if t == nil {
			continue
		}
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		ok := true
		switch describe(t) {
		case "an integer":
			_, ok = s.node.(*ast.IntegerNode)
		case "a number":
			switch s.node.(type) {
			case *ast.IntegerNode, *ast.FloatNode:
			default:
				ok = false
			}
		}
		if !ok {
			key := s.path.String()
			return &FileError{Path: path, Line: line(s.node.GetToken()), Key: key, Msg: mustBe(key)}
		}
	}
	return nil
}

// mustBe says what the value of key must be, from the type it decodes into.
func mustBe(key string) string {
	if key == "" {
		return "the file must be a mapping of keys to values"
	}
	t := typeAt(fileLayerType(), splitPath(key))
	if t == nil {
		// The error is at a value written under another key (through an alias, or under
		// an unknown key): say no more than we know.
		return fmt.Sprintf("key %q has a value of the wrong type", key)
	}
	return fmt.Sprintf("key %q must be %s", key, describe(t))
}

func splitPath(key string) []string {
	var out []string
	for _, part := range strings.Split(key, ".") {
		for part != "" {
			i := strings.Index(part[1:], "[")
			if i < 0 {
				out = append(out, part)
				break
			}
			out = append(out, part[:i+1])
			part = part[i+1:]
		}
	}
	return out
}

// typeAt returns the Go type that the value at path decodes into, or nil.
func typeAt(t reflect.Type, path []string) reflect.Type {
	for _, seg := range path {
		for t.Kind() == reflect.Pointer {
			t = t.Elem()
		}
		switch {
		case t == reflect.TypeFor[stringList]():
			return t
		case t.Kind() == reflect.Struct:
			f, ok := fieldByYAML(t, seg)
			if !ok {
				return nil
			}
			t = f.Type
		case t.Kind() == reflect.Map:
			t = t.Elem()
		case t.Kind() == reflect.Slice && strings.HasPrefix(seg, "["):
			t = t.Elem()
		default:
			return nil
		}
	}
	return t
}

func fieldByYAML(t reflect.Type, name string) (reflect.StructField, bool) {
	for i := range t.NumField() {
		f := t.Field(i)
		if tag, _, _ := strings.Cut(f.Tag.Get("yaml"), ","); tag == name {
			return f, true
		}
	}
	return reflect.StructField{}, false
}

func describe(t reflect.Type) string {
	if t == nil {
		return "of another type"
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[stringList]() {
		return "a string or a list of strings"
	}
	if t == reflect.TypeFor[modelLayer]() {
		return modelWant
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "an integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.Bool:
		return "true or false"
	case reflect.String:
		return "a string"
	case reflect.Slice:
		if e := describe(t.Elem()); strings.HasPrefix(e, "a ") || strings.HasPrefix(e, "an ") {
			return "a list of " + plural(e)
		}
		return "a list"
	case reflect.Map, reflect.Struct:
		return "a mapping"
	}
	return "of another type"
}

func plural(kind string) string {
	kind = strings.TrimPrefix(strings.TrimPrefix(kind, "an "), "a ")
	return kind + "s"
}
