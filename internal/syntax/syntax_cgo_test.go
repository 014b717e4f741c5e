//go:build cgo

package syntax

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"
	"unsafe"

	ts "github.com/tree-sitter/go-tree-sitter"
)

// The declarations of tsabi.h have the sizes of go-tree-sitter's own types.
func TestABI(t *testing.T) {
	c := cSizes()
	if got := unsafe.Sizeof(ts.Node{}); got != uintptr(c[0]) {
		t.Errorf("TSNode: go-tree-sitter's is %d bytes, tsabi.h's %d", got, c[0])
	}
	if got := unsafe.Sizeof(ts.TreeCursor{}); got != uintptr(c[1]) {
		t.Errorf("TSTreeCursor: go-tree-sitter's is %d bytes, tsabi.h's %d", got, c[1])
	}
}

// The flat tree is the tree go-tree-sitter's own cursor walks: the same nodes in the
// same order, with the same kinds, flags, ranges and fields.
func TestFlatTreeIsTheTree(t *testing.T) {
	srcs := map[string]string{
		"go":         "package p\n\n// Sum adds.\nfunc Sum(xs []int) (t int) {\n\tfor _, x := range xs { t += x }\n\treturn\n}\n",
		"python":     "class A:\n    @staticmethod\n    def f(x):\n        return 'a' + \"b\" # c\n",
		"typescript": "const f = (a: number): string => `${a}`;\ninterface I { x?: number }\n",
		"tsx":        "const e = <div className=\"x\">{y}</div>;\n",
		"rust":       "fn main() { let v: Vec<u8> = vec![1, 2]; println!(\"{}\", v.len()); }\n",
		"c":          "#include <stdio.h>\nint main(void) { printf(\"%d\\n\", 1 +); }\n", // a syntax error
		"dart":       "void main() { print('hi'); }\n",
		"json":       "{\"a\": [1, 2, {\"b\": null}]}",
	}
	for name, src := range srcs {
		l := Lookup(name)
		tree, err := Parse(context.Background(), l, []byte(src))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		p := ts.NewParser()
		if err := p.SetLanguage(ts.NewLanguage(grammars[name]())); err != nil {
			t.Fatal(err)
		}
		ref := p.Parse([]byte(src), nil)
		var want []ts.Node
		var fields []string
		c := ref.Walk()
		for {
			want = append(want, *c.Node())
			fields = append(fields, c.FieldName())
			if c.GotoFirstChild() {
				continue
			}
			for !c.GotoNextSibling() {
				if !c.GotoParent() {
					goto done
				}
			}
		}
	done:
		c.Close()
		if len(want) != len(tree.Nodes) {
			t.Fatalf("%s: %d nodes, go-tree-sitter walks %d", name, len(tree.Nodes), len(want))
		}
		for i, w := range want {
			g := tree.Nodes[i]
			flags := uint8(0)
			for f, ok := range map[uint8]bool{Named: w.IsNamed(), Extra: w.IsExtra(), Missing: w.IsMissing(), Error: w.IsError(), HasError: w.HasError()} {
				if ok {
					flags |= f
				}
			}
			field := ""
			if g.Field != 0 {
				field = l.ts.FieldNameForId(g.Field)
			}
			if g.Kind != w.KindId() || tree.Kind(int32(i)) != w.Kind() || g.Flags != flags || uint(g.Start) != w.StartByte() ||
				uint(g.End) != w.EndByte() || field != fields[i] {
				t.Fatalf("%s node %d: %+v (%s, field %q), want %s %v..%v flags %b field %q", name, i, g, tree.Kind(int32(i)), field,
					w.Kind(), w.StartByte(), w.EndByte(), flags, fields[i])
			}
			if g.Parent >= 0 {
				if pw := w.Parent(); pw == nil || uint(tree.Nodes[g.Parent].Start) != pw.StartByte() || tree.Nodes[g.Parent].Kind != pw.KindId() {
					t.Fatalf("%s node %d: wrong parent", name, i)
				}
			}
			if g.Children != uint32(w.ChildCount()) {
				t.Fatalf("%s node %d: %d children, want %d", name, i, g.Children, w.ChildCount())
			}
		}
		ref.Close()
		p.Close()
		if name == "c" && !tree.Nodes[0].Is(HasError) {
			t.Error("the C source with a syntax error parsed without one")
		}
	}
}

func TestLanguages(t *testing.T) {
	for _, l := range Languages {
		if grammars[l.Name] == nil {
			t.Errorf("%s has no grammar", l.Name)
		}
		tree, err := Parse(context.Background(), l, nil)
		if err != nil || len(tree.Nodes) != 1 {
			t.Errorf("%s: an empty file: %v, %v", l.Name, tree, err)
		}
		if k, ok := l.KindID("ERROR"); !ok || k != ErrorKind || l.KindName(ErrorKind) != "ERROR" {
			t.Errorf("%s: ERROR kind", l.Name)
		}
	}
	for path, want := range map[string]string{"a/b.go": "go", "x.TSX": "tsx", "m.h": "c", "m.hpp": "cpp", "s.zsh": "bash", "README": ""} {
		got := ""
		if l := ForPath(path); l != nil {
			got = l.Name
		}
		if got != want {
			t.Errorf("ForPath(%s) = %q, want %q", path, got, want)
		}
	}
	if Lookup("Golang") != Lookup("go") || Lookup("ts").Name != "typescript" || Lookup("cobol") != nil {
		t.Error("Lookup")
	}
	if id, ok := Lookup("go").KindID("call_expression"); !ok || Lookup("go").KindName(id) != "call_expression" {
		t.Error("KindID of call_expression")
	}
}

// A cancelled parse stops; binary and huge inputs parse or fail with an error, never a
// crash.
func TestParseBounds(t *testing.T) {
	l := Lookup("go")
	big := []byte("package p\n" + strings.Repeat("func f() { x := []int{1, 2, 3}; _ = x }\n", 120000)) // ~5 MB
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Parse(ctx, l, big); err == nil {
		t.Error("a cancelled parse gave a tree")
	}
	// A deadline that passes during the parse (5 MB take far longer than 1 ms) stops it.
	ctx, cancel = context.WithTimeout(context.Background(), time.Millisecond)
	defer cancel()
	if _, err := Parse(ctx, l, big); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a parse past its deadline: %v", err)
	}
	tree, err := Parse(context.Background(), l, big)
	if err != nil || len(tree.Nodes) < 1_000_000 {
		t.Fatalf("5 MB: %v nodes, %v", len(tree.Nodes), err)
	}
	bin, err := os.ReadFile(os.Args[0]) // this test's own executable
	if err != nil {
		t.Fatal(err)
	}
	if tree, err := Parse(context.Background(), l, bin[:1<<20]); err == nil && !tree.Nodes[0].Is(HasError) {
		t.Error("a binary parsed as Go without an error")
	}
}

// ParseKind keeps exactly the subtrees of one kind that a full parse has, node for node.
func TestParseKind(t *testing.T) {
	l := Lookup("javascript")
	src := []byte("foo(foo(x));\nbar(1);\n// foo(2)\nfunction f() { return foo(a, b) }\n")
	full, err := Parse(context.Background(), l, src)
	if err != nil {
		t.Fatal(err)
	}
	kind, ok := l.KindID("call_expression")
	if !ok {
		t.Fatal("no call_expression")
	}
	parser, err := NewParser(l)
	if err != nil {
		t.Fatal(err)
	}
	defer parser.Close()
	part, err := parser.ParseKind(context.Background(), src, kind)
	if err != nil {
		t.Fatal(err)
	}
	// The full tree's outermost call subtrees, in order.
	var want []Node
	for i := 0; i < len(full.Nodes); i++ {
		if full.Nodes[i].Kind != kind {
			continue
		}
		end := full.Nodes[i].End
		base := int32(len(want)) - int32(i)
		for j := i; j < len(full.Nodes) && (j == i || full.Nodes[j].Start < end); j++ {
			n := full.Nodes[j]
			if j == i {
				n.Parent, n.NextSibling = -1, -1
			} else {
				n.Parent += base
				if n.NextSibling >= 0 {
					n.NextSibling += base
				}
			}
			if n.FirstChild >= 0 {
				n.FirstChild += base
			}
			want = append(want, n)
			i = j
		}
	}
	if len(part.Nodes) != len(want) || part.Errors != full.Errors {
		t.Fatalf("%d nodes, want %d", len(part.Nodes), len(want))
	}
	for i := range want {
		if part.Nodes[i] != want[i] {
			t.Fatalf("node %d: %+v, want %+v", i, part.Nodes[i], want[i])
		}
	}
	// A kind absent from the file: no node, and a tree that says so.
	fn, _ := Lookup("go").KindID("function_declaration")
	goParser, err := NewParser(Lookup("go"))
	if err != nil {
		t.Fatal(err)
	}
	defer goParser.Close()
	if empty, err := goParser.ParseKind(context.Background(), []byte("package p\nvar x = 1\n"), fn); err != nil || len(empty.Nodes) != 0 {
		t.Fatalf("%v %v", empty, err)
	}
}
