package config

import (
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// keyPath is where a value sits in a file: its keys from the top, and "[i]" for the
// i-th item of a list.
type keyPath []string

func (p keyPath) String() string {
	var b strings.Builder
	for i, s := range p {
		if i > 0 && !strings.HasPrefix(s, "[") {
			b.WriteByte('.')
		}
		b.WriteString(s)
	}
	return b.String()
}

func (p keyPath) child(s string) keyPath { return append(p[:len(p):len(p)], s) }

type pos struct{ line, col int }

func posOf(tk *token.Token) pos {
	if tk == nil || tk.Position == nil {
		return pos{}
	}
	return pos{tk.Position.Line, tk.Position.Column}
}

// positions maps the tokens of a parsed file to their key paths, so that an error on
// a token can name its key, and the lines of the keys, so that a wrong value can be
// shown where it was written.
type positions struct {
	keys  map[pos]keyPath // a key's token → the key's path
	vals  map[pos]keyPath // a value's first token → the path of the value
	lines map[string]int  // a path → the line of its key
	// scalars are the scalar values, for the type checks the decoder does not make.
	scalars []scalarAt
}

type scalarAt struct {
	path keyPath
	node ast.Node
}

func indexPositions(root ast.Node) *positions {
	p := &positions{keys: map[pos]keyPath{}, vals: map[pos]keyPath{}, lines: map[string]int{}}
	if root != nil {
		p.walk(root, nil, 0)
	}
	return p
}

// maxWalkDepth stops the walk of absurdly nested (fuzzed) documents; deeper errors
// are still reported, with the nearest key found.
const maxWalkDepth = 64

func (p *positions) walk(n ast.Node, path keyPath, depth int) {
	if n == nil || depth > maxWalkDepth {
		return
	}
	if at := posOf(n.GetToken()); at != (pos{}) {
		if _, ok := p.vals[at]; !ok {
			p.vals[at] = path
		}
	}
	switch t := n.(type) {
	case *ast.DocumentNode:
		p.walk(t.Body, path, depth+1)
	case *ast.MappingNode:
		for _, mv := range t.Values {
			p.walk(mv, path, depth+1)
		}
	case *ast.MappingValueNode:
		key := path.child(keyText(t.Key))
		at := posOf(t.Key.GetToken())
		p.keys[at] = key
		if _, ok := p.lines[key.String()]; !ok {
			p.lines[key.String()] = at.line
		}
		p.walk(t.Value, key, depth+1)
	case *ast.SequenceNode:
		for i, v := range t.Values {
			item := path.child("[" + strconv.Itoa(i) + "]")
			if at := posOf(v.GetToken()); at != (pos{}) {
				p.lines[item.String()] = at.line
			}
			p.walk(v, item, depth+1)
		}
	case *ast.AnchorNode:
		p.walk(t.Value, path, depth+1)
	case *ast.TagNode:
		p.walk(t.Value, path, depth+1)
	case ast.ScalarNode:
		p.scalars = append(p.scalars, scalarAt{path, t})
	}
}

func keyText(k ast.MapKeyNode) string {
	if s, ok := unwrap(k).(*ast.StringNode); ok {
		return s.Value
	}
	return k.String()
}

// pathAt returns the path of the value at the token, or, failing that, of the nearest
// value that starts before it on the same line.
func (p *positions) pathAt(tk *token.Token) (keyPath, bool) {
	at := posOf(tk)
	if path, ok := p.vals[at]; ok {
		return path, true
	}
	if path, ok := p.keys[at]; ok {
		return path, true
	}
	best, found := pos{}, false
	for q := range p.vals {
		if q.line == at.line && q.col < at.col && (!found || q.col > best.col) {
			best, found = q, true
		}
	}
	return p.vals[best], found
}
