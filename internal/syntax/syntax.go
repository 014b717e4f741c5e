// Package syntax parses source files with tree-sitter grammars into flat trees that
// Go code walks without calling into C: the one package of gantry that uses cgo
// (parse_cgo.go). A build without cgo compiles parse_nocgo.go instead, where every
// parse says that the structural tools need a cgo build.
//
// A tree is its nodes in pre-order, each with its kind, flags, byte range and the
// indexes of its parent, first child and next sibling: one call into C parses a file
// and one more copies the tree out, so matching a pattern over a large tree costs no
// call per node.
package syntax

import (
	"errors"
	"path/filepath"
	"slices"
	"strings"
)

// ErrUnavailable is the error of every parse in a build without cgo.
var ErrUnavailable = errors.New("the structural tools need a gantry built with cgo (CGO_ENABLED=1, as the README's install command does)")

// Flags of a node.
const (
	Named    uint8 = 1 << iota // a named node (not a token like "(" or "if")
	Extra                      // a comment or other node the grammar allows anywhere
	Missing                    // inserted by error recovery: absent from the text
	Error                      // an ERROR node
	HasError                   // an ERROR or MISSING node is this one or below it
)

// Node is one node of a Tree. Its layout is the C side's (gnode in parse_cgo.go).
type Node struct {
	Kind        uint16 // the grammar's symbol (Language.KindName)
	Field       uint16 // the field it fills in its parent (0: none)
	Flags       uint8
	_           [3]byte
	Start, End  uint32 // byte offsets
	Parent      int32  // -1 for the root
	FirstChild  int32  // -1: none
	NextSibling int32  // -1: none
	Children    uint32 // count of children
}

// Is says whether n has every flag of f.
func (n *Node) Is(f uint8) bool { return n.Flags&f == f }

// Tree is a parsed file.
type Tree struct {
	Lang  *Language
	Src   []byte
	Nodes []Node // pre-order; Nodes[0] is the root (ParseKind: the first subtree's)
	// Errors says whether the file has a syntax error (an ERROR or MISSING node).
	Errors bool
}

// Text is node i's source text.
func (t *Tree) Text(i int32) []byte {
	n := &t.Nodes[i]
	return t.Src[n.Start:n.End]
}

// Kind is node i's kind name.
func (t *Tree) Kind(i int32) string { return t.Lang.KindName(t.Nodes[i].Kind) }

// ErrorKind is the symbol of ERROR nodes in every grammar.
const ErrorKind uint16 = 65535

// Language is one shipped grammar.
type Language struct {
	// Name is its id, as ast-grep spells it ("go", "tsx", "cpp").
	Name string
	// Aliases are other names it answers to ("golang", "ts", "c++").
	Aliases []string
	// Extensions are the file name endings that select it (with the dot).
	Extensions []string
	// Expando stands for "$" in patterns where "$" cannot start an identifier
	// ("" where it can): a metavariable $A is parsed as the identifier ExpandoA.
	Expando string

	kinds []string // by symbol
	named []bool
	grammar
}

// KindName is the name of a symbol ("ERROR" for ErrorKind, "" when unknown).
func (l *Language) KindName(k uint16) string {
	if k == ErrorKind {
		return "ERROR"
	}
	l.load()
	if int(k) < len(l.kinds) {
		return l.kinds[k]
	}
	return ""
}

// KindID is the symbol of a named kind (ok false when the grammar has none).
func (l *Language) KindID(name string) (uint16, bool) {
	if name == "ERROR" {
		return ErrorKind, true
	}
	l.load()
	for i, k := range l.kinds {
		if k == name && l.named[i] {
			return uint16(i), true
		}
	}
	return 0, false
}

// Languages are the shipped grammars, in the order ast-grep's documentation lists
// them. Extensions follow ast-grep's defaults; .h is C's.
var Languages = []*Language{
	{Name: "bash", Aliases: []string{"sh", "shell"}, Extensions: []string{".sh", ".bash", ".zsh", ".bats"}},
	{Name: "c", Extensions: []string{".c", ".h"}, Expando: "𐀀"},
	{Name: "cpp", Aliases: []string{"c++", "cxx"}, Extensions: []string{".cc", ".cpp", ".cxx", ".c++", ".hh", ".hpp", ".hxx", ".cu", ".ino"}, Expando: "𐀀"},
	{Name: "css", Extensions: []string{".css", ".scss"}, Expando: "_"},
	{Name: "dart", Extensions: []string{".dart"}},
	{Name: "go", Aliases: []string{"golang"}, Extensions: []string{".go"}, Expando: "µ"},
	{Name: "html", Extensions: []string{".html", ".htm", ".xhtml"}, Expando: "z"},
	{Name: "java", Extensions: []string{".java"}},
	{Name: "javascript", Aliases: []string{"js", "jsx"}, Extensions: []string{".js", ".mjs", ".cjs", ".jsx"}},
	{Name: "json", Extensions: []string{".json"}},
	{Name: "python", Aliases: []string{"py"}, Extensions: []string{".py", ".py3", ".pyi", ".bzl"}, Expando: "µ"},
	{Name: "ruby", Aliases: []string{"rb"}, Extensions: []string{".rb", ".rbw", ".gemspec", ".rake"}, Expando: "µ"},
	{Name: "rust", Aliases: []string{"rs"}, Extensions: []string{".rs"}, Expando: "µ"},
	{Name: "tsx", Extensions: []string{".tsx"}},
	{Name: "typescript", Aliases: []string{"ts"}, Extensions: []string{".ts", ".cts", ".mts"}},
}

// Lookup finds a language by name or alias, case-insensitively.
func Lookup(name string) *Language {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, l := range Languages {
		if l.Name == name || slices.Contains(l.Aliases, name) {
			return l
		}
	}
	return nil
}

// ForPath is the language of a file by its extension (nil: none shipped).
func ForPath(path string) *Language {
	ext := strings.ToLower(filepath.Ext(path))
	if ext == "" {
		return nil
	}
	for _, l := range Languages {
		if slices.Contains(l.Extensions, ext) {
			return l
		}
	}
	return nil
}

// Names lists the languages' names, for messages.
func Names() []string {
	out := make([]string, len(Languages))
	for i, l := range Languages {
		out[i] = l.Name
	}
	return out
}
