//go:build cgo

package syntax

/*
#include <stdlib.h>
#include "tsabi.h"

typedef struct {
  uint16_t kind;
  uint16_t field;
  uint8_t flags;
  uint8_t pad[3];
  uint32_t start, end;
  int32_t parent, first, next;
  uint32_t nchild;
} gnode;

typedef struct {
  const char *src;
  uint32_t len;
  volatile int32_t *cancel;
} gsrc;

static const char *gread(void *payload, uint32_t at, TSPoint pos, uint32_t *n) {
  gsrc *s = payload;
  if (at >= s->len) {
    *n = 0;
    return "";
  }
  *n = s->len - at;
  return s->src + at;
}

// A true answer stops the parse.
static bool gprogress(TSParseState *st) {
  gsrc *s = st->payload;
  return *s->cancel != 0;
}

static TSParser *gantry_parser(const TSLanguage *lang) {
  TSParser *p = ts_parser_new();
  if (!ts_parser_set_language(p, lang)) {
    ts_parser_delete(p);
    return NULL;
  }
  return p;
}

static TSTree *gantry_parse(TSParser *p, const char *src, uint32_t len, volatile int32_t *cancel) {
  gsrc s = {src, len, cancel};
  TSInput in = {&s, gread, TSInputEncodingUTF8, NULL};
  TSParseOptions o = {&s, gprogress};
  TSTree *t = ts_parser_parse_with_options(p, NULL, in, o);
  ts_parser_reset(p);
  return t;
}

// go-tree-sitter routes every allocation of the C library through a Go callback (a
// call from C into Go for each malloc and free of a parse); the C library's own
// allocator is what it would use without that.
static void gantry_libc_allocator(void) {
  ts_set_allocator(malloc, calloc, realloc, free);
}

static uint32_t gantry_count(TSTree *t) {
  return ts_node_descendant_count(ts_tree_root_node(t));
}

static void gfill(gnode *g, TSNode n, uint16_t field, int32_t parent) {
  g->kind = ts_node_symbol(n);
  g->field = field;
  g->flags = (ts_node_is_named(n) ? 1 : 0) | (ts_node_is_extra(n) ? 2 : 0) | (ts_node_is_missing(n) ? 4 : 0) |
             (ts_node_is_error(n) ? 8 : 0) | (ts_node_has_error(n) ? 16 : 0);
  g->start = ts_node_start_byte(n);
  g->end = ts_node_end_byte(n);
  g->parent = parent;
  g->first = -1;
  g->next = -1;
  g->nchild = 0;
}

// gflatten_sub writes the subtree of node at out[n...] in pre-order (its root with
// parent -1), at most cap in all; it returns the new count, and sets *more when it
// stopped at cap.
static uint32_t gflatten_sub(TSNode node, gnode *out, uint32_t n, uint32_t cap, int *more) {
  if (n >= cap) {
    *more = 1;
    return n;
  }
  TSTreeCursor s = ts_tree_cursor_new(node);
  int32_t top = n;
  gfill(&out[n++], node, 0, -1);
  int32_t at = top;
  for (;;) {
    if (ts_tree_cursor_goto_first_child(&s)) {
      if (n >= cap) { *more = 1; break; }
      int32_t i = n++;
      gfill(&out[i], ts_tree_cursor_current_node(&s), ts_tree_cursor_current_field_id(&s), at);
      out[at].first = i;
      out[at].nchild++;
      at = i;
      continue;
    }
    int done = 0;
    for (;;) {
      if (at == top) { done = 1; break; }
      if (ts_tree_cursor_goto_next_sibling(&s)) {
        if (n >= cap) { *more = 1; done = 1; break; }
        int32_t i = n++;
        int32_t par = out[at].parent;
        gfill(&out[i], ts_tree_cursor_current_node(&s), ts_tree_cursor_current_field_id(&s), par);
        out[at].next = i;
        out[par].nchild++;
        at = i;
        break;
      }
      ts_tree_cursor_goto_parent(&s);
      at = out[at].parent;
    }
    if (done) break;
  }
  ts_tree_cursor_delete(&s);
  return n;
}

// gantry_flatten_kind writes, in pre-order, the subtrees whose root is of kind
// symbol (each root with parent -1; one inside another is in the outer one's), at
// most cap nodes; more is 1 when it stopped at cap.
static uint32_t gantry_flatten_kind(TSTree *t, uint16_t symbol, gnode *out, uint32_t cap, int *more) {
  TSNode root = ts_tree_root_node(t);
  TSTreeCursor c = ts_tree_cursor_new(root);
  uint32_t n = 0;
  *more = 0;
  for (;;) {
    TSNode cur = ts_tree_cursor_current_node(&c);
    if (ts_node_symbol(cur) == symbol) {
      n = gflatten_sub(cur, out, n, cap, more);
      if (*more) break;
    } else if (ts_tree_cursor_goto_first_child(&c)) {
      continue;
    }
    for (;;) {
      if (ts_tree_cursor_goto_next_sibling(&c)) break;
      if (!ts_tree_cursor_goto_parent(&c)) {
        ts_tree_cursor_delete(&c);
        return n;
      }
    }
  }
  ts_tree_cursor_delete(&c);
  return n;
}

static bool gantry_has_error(TSTree *t) {
  return ts_node_has_error(ts_tree_root_node(t));
}
*/
import "C"

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	tsdart "github.com/UserNobody14/tree-sitter-dart/bindings/go"
	ts "github.com/tree-sitter/go-tree-sitter"
	tsbash "github.com/tree-sitter/tree-sitter-bash/bindings/go"
	tsc "github.com/tree-sitter/tree-sitter-c/bindings/go"
	tscpp "github.com/tree-sitter/tree-sitter-cpp/bindings/go"
	tscss "github.com/tree-sitter/tree-sitter-css/bindings/go"
	tsgo "github.com/tree-sitter/tree-sitter-go/bindings/go"
	tshtml "github.com/tree-sitter/tree-sitter-html/bindings/go"
	tsjava "github.com/tree-sitter/tree-sitter-java/bindings/go"
	tsjs "github.com/tree-sitter/tree-sitter-javascript/bindings/go"
	tsjson "github.com/tree-sitter/tree-sitter-json/bindings/go"
	tspython "github.com/tree-sitter/tree-sitter-python/bindings/go"
	tsruby "github.com/tree-sitter/tree-sitter-ruby/bindings/go"
	tsrust "github.com/tree-sitter/tree-sitter-rust/bindings/go"
	tsts "github.com/tree-sitter/tree-sitter-typescript/bindings/go"
)

// The C node and Go's Node are one layout (a size that differs fails to compile).
var (
	_ [unsafe.Sizeof(Node{}) - C.sizeof_gnode]byte
	_ [C.sizeof_gnode - unsafe.Sizeof(Node{})]byte
)

// Available says whether this build can parse.
const Available = true

// The C library allocates with libc's allocator, not through go-tree-sitter's Go
// callbacks: measured, the callbacks cost half the time of a parse (docs/tools.md).
// (go-tree-sitter's init, which installs them, runs before this package's.)
func init() { C.gantry_libc_allocator() }

var grammars = map[string]func() unsafe.Pointer{
	"bash": tsbash.Language, "c": tsc.Language, "cpp": tscpp.Language, "css": tscss.Language,
	"dart": tsdart.Language, "go": tsgo.Language, "html": tshtml.Language, "java": tsjava.Language,
	"javascript": tsjs.Language, "json": tsjson.Language, "python": tspython.Language,
	"ruby": tsruby.Language, "rust": tsrust.Language, "tsx": tsts.LanguageTSX,
	"typescript": tsts.LanguageTypescript,
}

// grammar is a language's parser table, loaded on first use.
type grammar struct {
	once sync.Once
	ptr  unsafe.Pointer
	ts   *ts.Language
}

func (l *Language) load() {
	l.once.Do(func() {
		f := grammars[l.Name]
		if f == nil {
			return
		}
		l.ptr = f()
		l.ts = ts.NewLanguage(l.ptr)
		n := l.ts.NodeKindCount()
		l.kinds = make([]string, n)
		l.named = make([]bool, n)
		for i := range n {
			l.kinds[i] = l.ts.NodeKindForId(uint16(i))
			l.named[i] = l.ts.NodeKindIsNamed(uint16(i))
		}
	})
}

// MaxNodes bounds the nodes of one tree (a 5 MB file of code has about a million).
const MaxNodes = 1 << 25

// Parse parses src. It stops, with ctx's error, when ctx ends.
func Parse(ctx context.Context, l *Language, src []byte) (*Tree, error) {
	p, err := NewParser(l)
	if err != nil {
		return nil, err
	}
	defer p.Close()
	return p.Parse(ctx, src)
}

// Parser parses files of one language, one at a time, reusing the C parser's memory
// and its node buffer from file to file (a search keeps one per worker and language):
// a tree it gives holds until its next parse. Close frees it.
type Parser struct {
	l      *Language
	p      *C.TSParser
	cancel *C.int32_t
	buf    []Node
}

// nodes is the parser's buffer, at least n long.
func (p *Parser) nodes(n int) []Node {
	if cap(p.buf) < n {
		p.buf = make([]Node, n, n+n/4)
	}
	return p.buf[:n]
}

// NewParser returns a parser of l.
func NewParser(l *Language) (*Parser, error) {
	l.load()
	if l.ptr == nil {
		return nil, fmt.Errorf("no grammar for %s in this build", l.Name)
	}
	p := C.gantry_parser((*C.TSLanguage)(l.ptr))
	if p == nil {
		return nil, fmt.Errorf("the %s grammar does not fit this tree-sitter", l.Name)
	}
	return &Parser{l: l, p: p, cancel: (*C.int32_t)(C.calloc(1, C.sizeof_int32_t))}, nil
}

// Close frees the parser.
func (p *Parser) Close() {
	if p.p != nil {
		C.ts_parser_delete(p.p)
		C.free(unsafe.Pointer(p.cancel))
		p.p, p.cancel = nil, nil
	}
}

// Parse parses src whole.
func (p *Parser) Parse(ctx context.Context, src []byte) (*Tree, error) { return p.parse(ctx, src, -1) }

// ParseKind parses src and keeps only the subtrees whose root is of kind (each such
// root has Parent -1; a subtree inside another is kept in the outer one): what a
// search for nodes of one kind needs, at a fraction of the copying. Tree.Errors says
// whether the whole file has syntax errors.
func (p *Parser) ParseKind(ctx context.Context, src []byte, kind uint16) (*Tree, error) {
	return p.parse(ctx, src, int(kind))
}

func (p *Parser) parse(ctx context.Context, src []byte, kind int) (*Tree, error) {
	if p.p == nil {
		return nil, fmt.Errorf("the %s parser is closed", p.l.Name)
	}
	if len(src) >= 1<<32-1 {
		return nil, fmt.Errorf("a file of %d bytes is too large to parse", len(src))
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	flag := (*int32)(unsafe.Pointer(p.cancel))
	atomic.StoreInt32(flag, 0)
	stop := context.AfterFunc(ctx, func() { atomic.StoreInt32(flag, 1) })
	defer stop()
	var cs *C.char
	if len(src) > 0 {
		cs = (*C.char)(unsafe.Pointer(&src[0]))
	}
	t := C.gantry_parse(p.p, cs, C.uint32_t(len(src)), p.cancel)
	if t == nil {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		return nil, fmt.Errorf("the %s parser gave no tree", p.l.Name)
	}
	defer C.ts_tree_delete(t)
	n := int(C.gantry_count(t))
	if n > MaxNodes {
		return nil, fmt.Errorf("the file has %d syntax nodes, more than the %d gantry holds", n, MaxNodes)
	}
	tree := &Tree{Lang: p.l, Src: src, Errors: bool(C.gantry_has_error(t))}
	if kind < 0 {
		nodes := p.nodes(max(n, 1))
		var more C.int // (the buffer holds every node: n is their count)
		got := C.gflatten_sub(C.ts_tree_root_node(t), (*C.gnode)(unsafe.Pointer(&nodes[0])), 0, C.uint32_t(len(nodes)), &more)
		tree.Nodes = nodes[:got]
		return tree, nil
	}
	// The subtrees of one kind: a buffer that grows when they do not fit (rare: most
	// files hold few nodes of the kind searched).
	size := max(min(n, max(4096, cap(p.buf))), 1)
	for {
		nodes := p.nodes(size)
		var more C.int
		got := C.gantry_flatten_kind(t, C.uint16_t(kind), (*C.gnode)(unsafe.Pointer(&nodes[0])), C.uint32_t(size), &more)
		if more == 0 {
			tree.Nodes = nodes[:got]
			return tree, nil
		}
		size = min(size*4, max(n, 1))
	}
}

// cSizes are the sizes of tsabi.h's TSNode and TSTreeCursor (for TestABI).
func cSizes() [2]int { return [2]int{C.sizeof_TSNode, C.sizeof_TSTreeCursor} }
