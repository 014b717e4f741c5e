package astmatch

import (
	"bytes"

	"github.com/gantry-dev/gantry/internal/syntax"
)

// Match is one match of a pattern in a tree.
type Match struct {
	Node int32 // the matched node
	// End is the end of the last node the pattern matched (trailing tokens a smart
	// match skipped stay out of a rewrite).
	End    uint32
	Single map[string]int32   // $A → node
	Multi  map[string][]int32 // $$$A → nodes, separators included
}

// binding is one metavariable bound while matching: a node, or a run of nodes.
type binding struct {
	name  string
	multi bool
	nodes []int32
}

// matcher matches one pattern against one tree; its bindings are a stack, so a probe
// that fails is undone by cutting it back.
type matcher struct {
	t   *syntax.Tree
	env []binding
	end uint32
}

func (m *matcher) lookup(name string) *binding {
	for i := len(m.env) - 1; i >= 0; i-- {
		if m.env[i].name == name {
			return &m.env[i]
		}
	}
	return nil
}

// FindAll returns every match in t in pre-order (nested matches included). A search
// asks MayMatch of a file's bytes first, to spare the parse of one that cannot match.
func (p *Pattern) FindAll(t *syntax.Tree) []Match {
	var out []Match
	m := &matcher{t: t}
	kind, anyKind := p.root.kind, p.root.meta != notMeta
	for i := range t.Nodes {
		n := &t.Nodes[i]
		if !anyKind && n.Kind != kind {
			continue
		}
		m.env, m.end = m.env[:0], n.End
		if m.matchRoot(&p.root, int32(i)) {
			out = append(out, m.result(int32(i)))
		}
	}
	return out
}

func (m *matcher) result(i int32) Match {
	r := Match{Node: i, End: m.end}
	for _, b := range m.env {
		if b.name == "" {
			continue
		}
		if b.multi {
			if r.Multi == nil {
				r.Multi = map[string][]int32{}
			}
			r.Multi[b.name] = b.nodes
		} else {
			if r.Single == nil {
				r.Single = map[string]int32{}
			}
			r.Single[b.name] = b.nodes[0]
		}
	}
	return r
}

type outcome uint8

const (
	matchedBoth outcome = iota
	skipCandidate
	noMatch
)

func (m *matcher) matchRoot(p *pnode, c int32) bool {
	if p.meta == metaOne {
		// A root metavariable is the candidate itself, comments included.
		return m.bindOne(p, c)
	}
	return m.matchNode(p, c) == matchedBoth
}

func (m *matcher) matchNode(p *pnode, c int32) outcome {
	n := &m.t.Nodes[c]
	switch {
	case p.meta != notMeta:
		if n.Is(syntax.Extra) {
			return skipCandidate
		}
		if p.meta == metaMulti { // (a $$$ among single goals binds one node)
			if !m.bindMulti(p.name, []int32{c}) {
				return noMatch
			}
			m.end = n.End
			return matchedBoth
		}
		if !m.bindOne(p, c) {
			return noMatch
		}
		return matchedBoth
	case p.leaf:
		if kindsMatch(p.kind, n.Kind) && (!p.named || string(m.t.Text(c)) == p.text) {
			m.end = n.End
			return matchedBoth
		}
		if n.Is(syntax.Extra) || !n.Is(syntax.Named) {
			return skipCandidate
		}
		return noMatch
	default:
		if !kindsMatch(p.kind, n.Kind) {
			if n.Is(syntax.Extra) {
				return skipCandidate // comments are layout
			}
			return noMatch
		}
		if m.matchChildren(p.children, n.FirstChild) {
			return matchedBoth
		}
		return noMatch
	}
}

func kindsMatch(goal, cand uint16) bool { return goal == cand || goal == syntax.ErrorKind }

func (m *matcher) next(c int32) int32 { return m.t.Nodes[c].NextSibling }

// matchChildren matches goals against the sibling list starting at c.
func (m *matcher) matchChildren(goals []pnode, c int32) bool {
	if c < 0 {
		return false
	}
	g := 0
	for {
		if g >= len(goals) {
			return true
		}
		// A run of siblings.
		if goals[g].meta == metaMulti {
			name := goals[g].name
			g++
			var run []int32
			if g == len(goals) {
				for ; c >= 0; c = m.next(c) {
					run = append(run, c)
				}
				return m.bindRun(name, run, 0)
			}
			skipped := 0
			for goals[g].trivial() {
				g, skipped = g+1, skipped+1
				if g == len(goals) {
					for ; c >= 0; c = m.next(c) {
						run = append(run, c)
					}
					return m.bindRun(name, run, skipped)
				}
			}
			if goals[g].meta == metaMulti {
				// The next goal is a run too: this one takes one node.
				run = append(run, c)
				c = m.next(c)
				if c < 0 || !m.bindRun(name, run, skipped) {
					return false
				}
				continue
			}
			for {
				// Probe the next goal; a failed probe leaves no binding.
				mark, end := len(m.env), m.end
				hit := m.matchNode(&goals[g], c) == matchedBoth
				m.env, m.end = m.env[:mark], end
				if hit {
					break
				}
				run = append(run, c)
				if c = m.next(c); c < 0 {
					return false
				}
			}
			if !m.bindRun(name, run, skipped) {
				return false
			}
		}
		// One goal against the next candidates, skipping trivia.
		for {
			if c < 0 {
				// The candidates ran out: the goals left must all be runs.
				for ; g < len(goals); g++ {
					if goals[g].meta != metaMulti {
						return false
					}
				}
				return true
			}
			r := m.matchNode(&goals[g], c)
			if r == matchedBoth {
				break
			}
			if r == noMatch {
				return false
			}
			c = m.next(c)
		}
		g++
		c = m.next(c)
		if g == len(goals) {
			return true // smart: whatever follows may remain
		}
		if c < 0 {
			for ; g < len(goals); g++ {
				if goals[g].meta != metaMulti {
					return false
				}
			}
			return true
		}
	}
}

// bindOne binds $A (or $$A) to node c; a name bound before must be bound to the same
// text.
func (m *matcher) bindOne(p *pnode, c int32) bool {
	n := &m.t.Nodes[c]
	if !p.anyKind && !n.Is(syntax.Named) {
		return false
	}
	if p.name != "" {
		if b := m.lookup(p.name); b != nil {
			if b.multi || !m.same(b.nodes[0], c) {
				return false
			}
		} else {
			m.env = append(m.env, binding{name: p.name, nodes: []int32{c}})
		}
	}
	m.end = n.End
	return true
}

// bindRun binds a run minus the tokens that the goals after the $$$ skipped.
func (m *matcher) bindRun(name string, run []int32, skipped int) bool {
	if len(run) > 0 {
		m.end = m.t.Nodes[run[len(run)-1]].End
	}
	if n := len(run) - skipped; n >= 0 {
		run = run[:n]
	} else {
		run = nil
	}
	return m.bindMulti(name, run)
}

func (m *matcher) bindMulti(name string, run []int32) bool {
	if name == "" {
		return true
	}
	if b := m.lookup(name); b != nil {
		if !b.multi {
			return false
		}
		// Compared on named nodes, pairwise.
		var x, y []int32
		for _, i := range b.nodes {
			if m.t.Nodes[i].Is(syntax.Named) {
				x = append(x, i)
			}
		}
		for _, i := range run {
			if m.t.Nodes[i].Is(syntax.Named) {
				y = append(y, i)
			}
		}
		if len(x) != len(y) {
			return false
		}
		for k := range x {
			if !m.same(x[k], y[k]) {
				return false
			}
		}
		return true
	}
	m.env = append(m.env, binding{name: name, multi: true, nodes: append([]int32(nil), run...)})
	return true
}

// same is ast-grep's equality of two bound nodes: the same node; or, when either has
// no named children, the same text; else the same kind and children, recursively.
func (m *matcher) same(a, b int32) bool {
	if a == b {
		return true
	}
	if m.namedLeaf(a) || m.namedLeaf(b) {
		return bytes.Equal(m.t.Text(a), m.t.Text(b))
	}
	na, nb := &m.t.Nodes[a], &m.t.Nodes[b]
	if na.Kind != nb.Kind || na.Children != nb.Children {
		return false
	}
	for x, y := na.FirstChild, nb.FirstChild; x >= 0 && y >= 0; x, y = m.next(x), m.next(y) {
		if !m.same(x, y) {
			return false
		}
	}
	return true
}

func (m *matcher) namedLeaf(i int32) bool {
	for c := m.t.Nodes[i].FirstChild; c >= 0; c = m.next(c) {
		if m.t.Nodes[c].Is(syntax.Named) {
			return false
		}
	}
	return true
}
