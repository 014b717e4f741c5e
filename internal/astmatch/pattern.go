// Package astmatch is ast-grep's pattern language on gantry's flat syntax trees:
// patterns with metavariables ($A one named node, $$A one node of any kind, $$$A a
// run of siblings, $_ and $$$ the same without binding), compiled per language
// through a ladder of scaffolds, and matched with ast-grep's default ("smart")
// strictness. docs/tools.md ("ast_grep") says what a user sees of it.
package astmatch

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/syntax"
)

// metaKind is what a pattern node is.
type metaKind uint8

const (
	notMeta   metaKind = iota
	metaOne            // $A (named nodes only) or $$A (any node)
	metaMulti          // $$$A
)

// pnode is one node of a compiled pattern.
type pnode struct {
	meta     metaKind
	name     string // the metavariable's name; "" when it binds nothing ($_, $$$)
	anyKind  bool   // $$A: also unnamed nodes
	kind     uint16
	named    bool
	leaf     bool
	text     string // a leaf's text
	children []pnode
}

// trivial is an unnamed token of the pattern (skipped after a $$$).
func (p *pnode) trivial() bool { return p.meta == notMeta && p.leaf && !p.named }

// Pattern is a compiled pattern.
type Pattern struct {
	Lang     *syntax.Language
	Source   string // as given
	Scaffold string // the context that parsed it ("" when parsed alone)
	root     pnode
	// literals are texts every match contains (a file without one cannot match).
	literals []string
}

// scaffold is a context a fragment is parsed in: prefix + fragment + suffix.
type scaffold struct{ name, prefix, suffix string }

// statementsFirst are the languages whose files cannot hold statements, where a
// fragment alone parses, cleanly, as something else (Go's `fmt.Println($A)` as a type
// conversion, Dart's `print($A);` as a function signature): their ladder comes before
// the fragment alone.
var statementsFirst = map[string]bool{"go": true, "dart": true}

// ladders are the scaffolds tried per language, in order, after the fragment alone.
var ladders = map[string][]scaffold{
	"go": {
		{"statement", "package p\nfunc _() {\n", "\n}\n"},
		{"declaration", "package p\n", "\n"},
		{"expression", "package p\nvar _ = ", "\n"},
	},
	"python": {
		{"class member", "class _:\n    ", "\n"},
		{"decorator", "", "\ndef _(): pass\n"},
		{"expression", "_ = ", "\n"},
	},
	"javascript": jsLadder, "typescript": jsLadder, "tsx": jsLadder,
	"rust": {
		{"statement", "fn _() {\n", "\n}\n"},
		{"impl member", "impl _ {\n", "\n}\n"},
		{"expression", "const _: () = ", ";\n"},
	},
	"c":   cLadder,
	"cpp": append([]scaffold{{"class member", "class _ {\n", "\n};\n"}}, cLadder...),
	"java": {
		{"class member", "class _ {\n", "\n}\n"},
		{"statement", "class _ { void _() {\n", "\n} }\n"},
		{"expression", "class _ { Object _ = ", "; }\n"},
	},
	"ruby": {{"class member", "class X_\n", "\nend\n"}},
	"dart": {
		{"statement", "void _() {\n", "\n}\n"},
		{"class member", "class _ {\n", "\n}\n"},
		{"expression", "var _ = ", ";\n"},
	},
	"css":  {{"declaration", "a {\n", "\n}\n"}},
	"json": {{"object member", "{", "}"}},
}

var jsLadder = []scaffold{
	{"class member", "class _ {\n", "\n}\n"},
	{"expression", "(", ")\n"},
	{"object member", "({\n", "\n})\n"},
}

var cLadder = []scaffold{
	{"statement", "void _(void) {\n", "\n}\n"},
	{"expression", "int _ = ", ";\n"},
}

// Compile compiles src for lang. The error is one sentence: why no scaffold parsed it.
func Compile(ctx context.Context, lang *syntax.Language, src string) (*Pattern, error) {
	if strings.TrimSpace(src) == "" {
		return nil, fmt.Errorf("the pattern is empty")
	}
	if !utf8.ValidString(src) {
		return nil, fmt.Errorf("the pattern is not valid UTF-8")
	}
	frag := strings.TrimSpace(preprocess(lang.Expando, src))
	if isMeta(lang, frag) == metaMulti {
		return nil, fmt.Errorf("a pattern of a lone %s matches no single node: wrap it in a larger pattern, or use $A", strings.TrimSpace(src))
	}
	tries := []scaffold{{name: ""}}
	if statementsFirst[lang.Name] {
		tries = append(append([]scaffold(nil), ladders[lang.Name]...), scaffold{name: ""})
	} else {
		tries = append(tries, ladders[lang.Name]...)
	}
	var why string
	// A parse without errors wins; else the first whose only errors are tokens the
	// parser inserted (`let $A = 1` lacks its ";"), which the pattern leaves out, or
	// error nodes that are metavariables (Java's `{ $$$B }` lacks a ";" after $$$B).
	var fallback *Pattern
	for _, sc := range tries {
		text := sc.prefix + frag + sc.suffix
		tree, err := syntax.Parse(ctx, lang, []byte(text))
		if err != nil {
			return nil, err
		}
		clean := !tree.Errors
		if !clean && fallback != nil {
			continue
		}
		node, ok := fragmentNode(tree, uint32(len(sc.prefix)), uint32(len(sc.prefix)+len(frag)))
		if !ok {
			if why == "" {
				if clean {
					why = "it is more than one node"
				} else {
					why = errorAt(tree, len(sc.prefix), frag)
				}
			}
			continue
		}
		p := &Pattern{Lang: lang, Source: src, Scaffold: sc.name}
		metaErrors := 0
		p.root = convert(tree, node, &metaErrors)
		if !clean && errorNodes(tree) != metaErrors {
			if why == "" {
				why = errorAt(tree, len(sc.prefix), frag)
			}
			continue
		}
		p.literals = literals(lang, &p.root, nil)
		if clean {
			return p, nil
		}
		fallback = p
	}
	if fallback != nil {
		return fallback, nil
	}
	if why == "" {
		why = "no scaffold accepts it"
	}
	return nil, fmt.Errorf("the pattern does not parse as %s (%s); write a whole statement, expression, member or declaration", lang.Name, why)
}

// errorNodes counts the ERROR nodes of t.
func errorNodes(t *syntax.Tree) int {
	n := 0
	for i := range t.Nodes {
		if t.Nodes[i].Is(syntax.Error) {
			n++
		}
	}
	return n
}

// errorAt describes the first syntax error of a parse, in the fragment's terms.
func errorAt(t *syntax.Tree, off int, frag string) string {
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Is(syntax.Error) || n.Is(syntax.Missing) {
			at := int(n.Start) - off
			if at < 0 || at > len(frag) {
				return "a syntax error"
			}
			near := frag[at:]
			if len(near) > 20 {
				near = near[:20]
			}
			if n.Is(syntax.Missing) {
				return fmt.Sprintf("a %q is missing at %q", t.Kind(int32(i)), near)
			}
			if near == "" {
				return "it ends too soon"
			}
			return fmt.Sprintf("a syntax error at %q", near)
		}
	}
	return "a syntax error"
}

// fragmentNode finds the effective node of the fragment at [start, end): the
// outermost node spanning exactly that range, then down while a node has a single
// child (ast-grep's rule: `foo(x)` is the call, not its expression statement).
func fragmentNode(t *syntax.Tree, start, end uint32) (int32, bool) {
	found := int32(-1)
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if n.Start == start && n.End == end && !n.Is(syntax.Missing) {
			found = int32(i)
			break
		}
		if n.Start > start {
			break
		}
	}
	if found < 0 {
		return -1, false
	}
	for {
		only, count := int32(-1), 0
		for c := t.Nodes[found].FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
			cn := &t.Nodes[c]
			if cn.Is(syntax.Missing) || (cn.Start == cn.End && t.Kind(c) == "") {
				continue
			}
			only, count = c, count+1
		}
		if count != 1 {
			return found, true
		}
		found = only
	}
}

// convert makes the pattern node of tree node i; metaErrors counts the ERROR nodes
// that are metavariables (their text is one), and so leave no error in the pattern.
func convert(t *syntax.Tree, i int32, metaErrors *int) pnode {
	n := &t.Nodes[i]
	text := string(t.Text(i))
	if m := parseMeta(t.Lang, text); m.meta != notMeta {
		for j := i; j < int32(len(t.Nodes)) && t.Nodes[j].Start < n.End || j == i; j++ {
			if t.Nodes[j].Is(syntax.Error) && t.Nodes[j].End <= n.End {
				*metaErrors++
			}
		}
		return m
	}
	if n.Children == 0 {
		return pnode{kind: n.Kind, named: n.Is(syntax.Named), leaf: true, text: text}
	}
	p := pnode{kind: n.Kind, named: n.Is(syntax.Named)}
	for c := n.FirstChild; c >= 0; c = t.Nodes[c].NextSibling {
		cn := &t.Nodes[c]
		if cn.Is(syntax.Missing) || (cn.Is(syntax.Extra) && !cn.Is(syntax.Error)) {
			continue // a comment in a pattern is layout (an ERROR node is "extra" too)
		}
		p.children = append(p.children, convert(t, c, metaErrors))
	}
	return p
}

// sigil is the character that stands for "$" in a language's preprocessed patterns.
func sigil(l *syntax.Language) string {
	if l.Expando != "" {
		return l.Expando
	}
	return "$"
}

// preprocess replaces the "$" of metavariables by the language's expando character,
// where "$" cannot be part of an identifier: a run of "$" followed by A-Z or "_", and
// a lone "$$$".
func preprocess(expando, src string) string {
	if expando == "" || !strings.Contains(src, "$") {
		return src
	}
	var b strings.Builder
	dollars := 0
	flush := func(replace bool) {
		s := "$"
		if replace {
			s = expando
		}
		for range dollars {
			b.WriteString(s)
		}
		dollars = 0
	}
	for _, r := range src {
		if r == '$' {
			dollars++
			continue
		}
		flush((r >= 'A' && r <= 'Z') || r == '_' || dollars == 3)
		b.WriteRune(r)
	}
	flush(dollars == 3)
	return b.String()
}

// isMeta says whether text is a metavariable, and which kind.
func isMeta(l *syntax.Language, text string) metaKind { return parseMeta(l, text).meta }

// parseMeta reads text as a metavariable: its kind (notMeta when it is none), its
// name ("" for $_, $$$ and names starting with "_"), and whether it takes any node
// ($$A).
func parseMeta(l *syntax.Language, text string) pnode {
	s := sigil(l)
	rest, n := text, 0
	for n < 3 && strings.HasPrefix(rest, s) {
		rest, n = rest[len(s):], n+1
	}
	switch {
	case n == 3 && rest == "":
		return pnode{meta: metaMulti}
	case n == 0 || rest == "" || !(rest[0] >= 'A' && rest[0] <= 'Z' || rest[0] == '_'):
		return pnode{}
	}
	for _, c := range rest {
		if !(c >= 'A' && c <= 'Z' || c == '_' || c >= '0' && c <= '9') {
			return pnode{}
		}
	}
	p := pnode{meta: metaOne, anyKind: n == 2}
	if n == 3 {
		p.meta = metaMulti
	}
	if rest[0] != '_' {
		p.name = rest
	}
	return p
}

// literals collects texts every match contains verbatim: the named leaves
// (identifiers, numbers) and the keywords and operators of the pattern (an unnamed
// token is compared by kind, so only a token whose text is its kind's name counts:
// tree-sitter-typescript gives some tokens a wrong span). The three longest are kept:
// a file is scanned once for each before it is parsed.
func literals(l *syntax.Language, p *pnode, out []string) []string {
	collect(l, p, &out)
	sort.Slice(out, func(i, j int) bool {
		if len(out[i]) != len(out[j]) {
			return len(out[i]) > len(out[j])
		}
		return out[i] < out[j]
	})
	out = slices.Compact(out)
	if len(out) > 3 {
		out = out[:3]
	}
	return out
}

func collect(l *syntax.Language, p *pnode, out *[]string) {
	if p.meta != notMeta {
		return
	}
	if p.leaf {
		switch {
		case p.text == "":
		case p.named:
			*out = append(*out, p.text)
		case len(p.text) > 1 && l.KindName(p.kind) == p.text:
			*out = append(*out, p.text)
		}
		return
	}
	for i := range p.children {
		collect(l, &p.children[i], out)
	}
}

// RootKind is the kind every match's node has (ok false: any kind, for a pattern
// that is a lone metavariable).
func (p *Pattern) RootKind() (uint16, bool) {
	if p.root.meta != notMeta || p.root.kind == syntax.ErrorKind {
		return 0, false
	}
	return p.root.kind, true
}

// Parse parses src for this pattern with parser (of the pattern's language): only the
// subtrees a match can be in, when the pattern's root has one kind (ParseKind).
func (p *Pattern) Parse(ctx context.Context, parser *syntax.Parser, src []byte) (*syntax.Tree, error) {
	if k, ok := p.RootKind(); ok {
		return parser.ParseKind(ctx, src, k)
	}
	return parser.Parse(ctx, src)
}

// MayMatch says whether src can hold a match: every literal of the pattern occurs in
// it as a token — an end of the literal that is a letter, a digit or "_" must not
// touch another such character (the lexer would have read one longer token). A false
// answer spares the parse.
func (p *Pattern) MayMatch(src []byte) bool {
	for _, lit := range p.literals {
		if !containsToken(src, lit) {
			return false
		}
	}
	return true
}

func containsToken(src []byte, lit string) bool {
	l := []byte(lit)
	checkLeft, checkRight := wordByte(l[0]), wordByte(l[len(l)-1])
	for from := 0; ; {
		i := bytes.Index(src[from:], l)
		if i < 0 {
			return false
		}
		at := from + i
		end := at + len(l)
		if (!checkLeft || at == 0 || !wordByte(src[at-1])) && (!checkRight || end == len(src) || !wordByte(src[end])) {
			return true
		}
		from = at + 1
	}
}

// wordByte is an ASCII letter, digit or "_" (a byte of a non-ASCII character counts
// as not one, which only makes the check let more files through).
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_'
}
