package config

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// A tool family that has settings declares its config section in its own package
// (see docs/architecture.md, "Adding a tool"): the top-level key, the section's Go
// type and defaults, the type one file's section decodes into (strictly, like every
// key of the files: an unknown key is an error with its line and a suggestion), its
// validation and how a file's values merge over the files before it. The loader
// applies every registered section to every file; the family reads the merged value
// with its Section's Of. Registration is static, at package initialisation, like
// database/sql's drivers: the set of sections is the program's, not a session's.

// SectionLayer is what one file says of a section of type T: a pointer to a struct
// whose fields carry yaml tags, decoded strictly from the section's mapping (a nil
// pointer field is a key the file does not set).
type SectionLayer[T any] interface {
	// Check validates the file's values, reporting each problem through c (which
	// knows the file and the line of every key).
	Check(c Checker)
	// Merge lays the file's values over into, the value of the files before it.
	Merge(into *T)
}

// ProgramHolder is a SectionLayer that names programs gantry would start later
// (servers, adapters, interpreters): a project's file that is not trusted yet has
// them held back (LoadHeld).
type ProgramHolder interface {
	// HoldPrograms removes the programs from the layer and returns each as
	// "key: program args", its key under the section ("servers.zls: zls --x").
	HoldPrograms() []string
}

// SectionDef declares a tool family's section.
type SectionDef[T any] struct {
	// Key is the section's top-level key in the files ("lsp").
	Key string
	// Doc says in one sentence what the section configures; docs/config.md
	// documents each of its keys (a test of app checks it).
	Doc string
	// Default is the section's value when no file sets it (nil: T's zero value).
	Default func() T
	// FromPlugin, when set, adds what an enabled plugin brings to the section (a
	// plugin's language servers) to into, the value the files made; it returns the
	// sentences of what it left out, for the plugin's Skipped.
	FromPlugin func(into *T, p *Plugin) (skipped []string)
}

// Section is a registered section: its family reads the merged value with Of.
type Section[T any] struct {
	def   SectionDef[T]
	index int
}

// sectionEntry is a section without its type, as the loader sees it.
type sectionEntry struct {
	key, doc   string
	layer      reflect.Type // the SectionLayer's pointer type
	newValue   func() any   // a *T holding the default
	merge      func(layer, into any)
	check      func(layer any, c Checker)
	fromPlugin func(into any, p *Plugin) []string
}

var (
	sections     []*sectionEntry
	sectionsOnce sync.Once
	fullLayer    reflect.Type // layer's fields and one per section (see fileLayerType)
)

// RegisterSection registers a tool family's section; L is the type one file's
// section decodes into. It panics on a key taken by gantry's own keys or by another
// section, and when a file was read already (registration belongs to package
// initialisation).
func RegisterSection[T any, L SectionLayer[T]](def SectionDef[T]) *Section[T] {
	lt := reflect.TypeFor[L]()
	if lt.Kind() != reflect.Pointer || lt.Elem().Kind() != reflect.Struct {
		panic(fmt.Sprintf("config: section %q: its layer must be a pointer to a struct, not %s", def.Key, lt))
	}
	if def.Key == "" || typeAt(reflect.TypeFor[layer](), []string{def.Key}) != nil ||
		slices.ContainsFunc(sections, func(s *sectionEntry) bool { return s.key == def.Key }) {
		panic(fmt.Sprintf("config: section key %q is empty or taken", def.Key))
	}
	if fullLayer != nil {
		panic(fmt.Sprintf("config: section %q registered after a file was read", def.Key))
	}
	s := &Section[T]{def: def, index: len(sections)}
	sections = append(sections, &sectionEntry{
		key: def.Key, doc: def.Doc, layer: lt,
		newValue: func() any { v := s.defaultValue(); return &v },
		merge:    func(l, into any) { l.(L).Merge(into.(*T)) },
		check:    func(l any, c Checker) { l.(L).Check(c) },
		fromPlugin: func(into any, p *Plugin) []string {
			if def.FromPlugin == nil {
				return nil
			}
			return def.FromPlugin(into.(*T), p)
		},
	})
	return s
}

func (s *Section[T]) defaultValue() T {
	if s.def.Default != nil {
		return s.def.Default()
	}
	var zero T
	return zero
}

// Key is the section's top-level key.
func (s *Section[T]) Key() string { return s.def.Key }

// Of returns the section's value in c: the default merged with what c's files (and
// plugins) say. A Config not made by Default or Load has the default.
func (s *Section[T]) Of(c *Config) T {
	if c == nil || s.index >= len(c.sections) {
		return s.defaultValue()
	}
	return *c.sections[s.index].(*T)
}

// Set replaces the section's value in c (for tests and for callers that build a
// Config by hand); other copies of c are not changed.
func (s *Section[T]) Set(c *Config, v T) {
	vals := c.sectionValues()
	vals[s.index] = &v
	c.sections = vals
}

// sectionValues returns a copy of c's section values, with the defaults of those c
// has none of.
func (c *Config) sectionValues() []any {
	out := make([]any, len(sections))
	copy(out, c.sections)
	for i, e := range sections {
		if out[i] == nil {
			out[i] = e.newValue()
		}
	}
	return out
}

// sectionsByKey returns the indexes of the sections in the order of their keys, so
// that what several sections say comes in an order that does not depend on the
// order the packages registered them in.
func sectionsByKey() []int {
	out := make([]int, len(sections))
	for i := range out {
		out[i] = i
	}
	slices.SortFunc(out, func(a, b int) int { return strings.Compare(sections[a].key, sections[b].key) })
	return out
}

// SectionInfo describes a registered section, for its documentation.
type SectionInfo struct {
	Key, Doc string
	// Keys are its keys as the files write them ("lsp.servers"), and, for a map of
	// rows, the keys of a row ("lsp.servers.*.command").
	Keys []string
}

// Sections describes the registered sections, in the order of their keys.
func Sections() []SectionInfo {
	var out []SectionInfo
	for _, e := range sections {
		out = append(out, SectionInfo{Key: e.key, Doc: e.doc, Keys: yamlKeys(e.layer, e.key)})
	}
	slices.SortFunc(out, func(a, b SectionInfo) int { return strings.Compare(a.Key, b.Key) })
	return out
}

// yamlKeys lists the keys of the struct t points to under prefix, and those of the
// structs of its maps' rows under prefix.key.*.
func yamlKeys(t reflect.Type, prefix string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	var out []string
	for i := range t.NumField() {
		tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		if tag == "" || tag == "-" {
			continue
		}
		key := prefix + "." + tag
		out = append(out, key)
		ft := t.Field(i).Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ft.Kind() == reflect.Map && ft.Elem().Kind() == reflect.Struct {
			out = append(out, yamlKeys(ft.Elem(), key+".*")...)
		} else if ft.Kind() == reflect.Struct {
			out = append(out, yamlKeys(ft, key)...)
		}
	}
	return out
}

// fileLayerType is the type a file decodes into: layer's fields, then one field per
// registered section under its key. It is made once, when the first file is read.
func fileLayerType() reflect.Type {
	sectionsOnce.Do(func() {
		var fields []reflect.StructField
		lt := reflect.TypeFor[layer]()
		for i := range lt.NumField() {
			if f := lt.Field(i); f.IsExported() {
				fields = append(fields, reflect.StructField{Name: f.Name, Type: f.Type, Tag: f.Tag})
			}
		}
		for i, e := range sections {
			fields = append(fields, reflect.StructField{
				Name: "Section" + strconv.Itoa(i), Type: e.layer,
				Tag: reflect.StructTag(`yaml:"` + e.key + `"`),
			})
		}
		fullLayer = reflect.StructOf(fields)
	})
	return fullLayer
}

// newFileLayer returns a pointer to a new value of fileLayerType.
func newFileLayer() reflect.Value { return reflect.New(fileLayerType()) }

// splitFileLayer takes a decoded file layer apart: layer's fields, and the sections
// the file sets (nil for one it does not).
func splitFileLayer(v reflect.Value) *layer {
	v = v.Elem()
	l := &layer{}
	lv := reflect.ValueOf(l).Elem()
	t := v.Type()
	for i := range t.NumField() {
		name := t.Field(i).Name
		if f := lv.FieldByName(name); f.IsValid() {
			f.Set(v.Field(i))
		}
	}
	l.sections = make([]any, len(sections))
	for i := range sections {
		if f := v.FieldByName("Section" + strconv.Itoa(i)); !f.IsNil() {
			l.sections[i] = f.Interface()
		}
	}
	return l
}

// Checker reports the problems of a section's values, each with the file's name and
// the line of its key (of its nearest parent written in the file when the key is
// missing), as the errors of gantry's own keys are.
type Checker struct {
	v  *validator
	at keyPath
}

// At returns the Checker of a key under c's ("servers", name).
func (c Checker) At(keys ...string) Checker {
	at := c.at
	for _, k := range keys {
		at = at.child(k)
	}
	return Checker{c.v, at}
}

// Item returns the Checker of the i-th item of the list at c's key.
func (c Checker) Item(i int) Checker { return Checker{c.v, c.at.child("[" + strconv.Itoa(i) + "]")} }

// Fail reports that the value at c's key is wrong; the message says how, after the
// key's quoted name: `key "lsp.diagnosticsWait" must be …`.
func (c Checker) Fail(format string, args ...any) { c.v.fail(c.at, format, args...) }

// OneOf reports val when it is not one of allowed.
func (c Checker) OneOf(val string, allowed []string) { c.v.oneOf(c.at, val, allowed) }
