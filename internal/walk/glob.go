package walk

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Glob is a compiled glob pattern matched against slash-separated relative paths. `*`,
// `?` and classes never match a slash; `**` as a whole component matches zero or more
// components; `**` inside a component is a `*`; `{a,b}` are alternatives; a backslash
// escapes the next character.
type Glob struct {
	src  string
	alts [][]comp // one component list per brace alternative
	// base is set when every alternative is `**/x`: only the last path component is
	// matched against x.
	base bool
}

// maxAlternatives bounds the brace expansion of one pattern.
const maxAlternatives = 1024

// CompileGlob compiles pattern. The error says what is wrong in a few words.
func CompileGlob(pattern string) (*Glob, error) {
	if pattern == "" {
		return nil, errors.New("the pattern is empty")
	}
	exp, err := expandBraces(pattern)
	if err != nil {
		return nil, err
	}
	g := &Glob{src: pattern, base: true}
	for _, p := range exp {
		cs, err := compileComps(p)
		if err != nil {
			return nil, err
		}
		if len(cs) != 2 || cs[0].kind != compDouble || cs[1].kind == compDouble {
			g.base = false
		}
		g.alts = append(g.alts, cs)
	}
	return g, nil
}

// String returns the pattern as given.
func (g *Glob) String() string { return g.src }

// Match reports whether the relative path p matches.
func (g *Glob) Match(p string) bool {
	if g.base {
		name := p[strings.LastIndexByte(p, '/')+1:]
		for _, cs := range g.alts {
			if cs[1].match(name) {
				return true
			}
		}
		return false
	}
	for _, cs := range g.alts {
		if matchComps(cs, p) {
			return true
		}
	}
	return false
}

// matchComps matches the components cs against the path p (never empty).
func matchComps(cs []comp, p string) bool {
	for {
		if len(cs) == 0 {
			return false // path left over
		}
		c := &cs[0]
		if c.kind == compDouble {
			rest := cs[1:]
			if len(rest) == 0 {
				return true
			}
			for {
				if matchComps(rest, p) {
					return true
				}
				i := strings.IndexByte(p, '/')
				if i < 0 {
					return false
				}
				p = p[i+1:]
			}
		}
		i := strings.IndexByte(p, '/')
		if i < 0 {
			if !c.match(p) {
				return false
			}
			for _, r := range cs[1:] {
				if r.kind != compDouble {
					return false
				}
			}
			return true
		}
		if !c.match(p[:i]) {
			return false
		}
		cs, p = cs[1:], p[i+1:]
	}
}

type compKind uint8

const (
	compLit    compKind = iota // exact name
	compAny                    // *
	compSuffix                 // *lit
	compPrefix                 // lit*
	compTokens                 // anything else
	compDouble                 // **
)

// comp is one path component of a pattern.
type comp struct {
	kind compKind
	lit  string
	toks []token
}

func (c *comp) match(name string) bool {
	switch c.kind {
	case compLit:
		return name == c.lit
	case compAny, compDouble:
		return true
	case compSuffix:
		return strings.HasSuffix(name, c.lit)
	case compPrefix:
		return strings.HasPrefix(name, c.lit)
	}
	return matchTokens(c.toks, name)
}

type tokKind uint8

const (
	tokLit tokKind = iota
	tokOne
	tokStar
	tokClass
)

type token struct {
	kind   tokKind
	lit    string
	negate bool
	ranges []rune // pairs lo, hi
}

func (t *token) classHas(r rune) bool {
	in := false
	for i := 0; i+1 < len(t.ranges); i += 2 {
		if t.ranges[i] <= r && r <= t.ranges[i+1] {
			in = true
			break
		}
	}
	return in != t.negate
}

// matchTokens is the classic wildcard match with backtracking to the last star; it is
// exact because every token but the star has a fixed width in runes.
func matchTokens(toks []token, s string) bool {
	ti, si := 0, 0
	starT, starS := -1, 0
	for si < len(s) || ti < len(toks) {
		if ti < len(toks) {
			t := &toks[ti]
			switch t.kind {
			case tokStar:
				starT, starS = ti, si
				ti++
				continue
			case tokLit:
				if strings.HasPrefix(s[si:], t.lit) {
					si += len(t.lit)
					ti++
					continue
				}
			case tokOne:
				if si < len(s) {
					_, n := utf8.DecodeRuneInString(s[si:])
					si += n
					ti++
					continue
				}
			case tokClass:
				if si < len(s) {
					r, n := utf8.DecodeRuneInString(s[si:])
					if t.classHas(r) {
						si += n
						ti++
						continue
					}
				}
			}
		}
		if starT < 0 || starS >= len(s) {
			return false
		}
		_, n := utf8.DecodeRuneInString(s[starS:])
		starS += n
		si, ti = starS, starT+1
	}
	return true
}

// compileComps splits a brace-free pattern into components.
func compileComps(p string) ([]comp, error) {
	var parts []string
	start := 0
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '/':
			parts = append(parts, p[start:i])
			start = i + 1
		}
	}
	parts = append(parts, p[start:])
	var cs []comp
	for _, part := range parts {
		if part == "" {
			continue // a//b, leading or trailing slash
		}
		if part == "**" {
			if len(cs) > 0 && cs[len(cs)-1].kind == compDouble {
				continue
			}
			cs = append(cs, comp{kind: compDouble})
			continue
		}
		c, err := compileComp(part)
		if err != nil {
			return nil, err
		}
		cs = append(cs, c)
	}
	if len(cs) == 0 {
		return nil, errors.New("the pattern names no path")
	}
	return cs, nil
}

func compileComp(s string) (comp, error) {
	var toks []token
	var lit strings.Builder
	flush := func() {
		if lit.Len() > 0 {
			toks = append(toks, token{kind: tokLit, lit: lit.String()})
			lit.Reset()
		}
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; c {
		case '\\':
			if i+1 >= len(s) {
				return comp{}, errors.New("it ends with a lone backslash")
			}
			i++
			lit.WriteByte(s[i])
		case '*':
			flush()
			if len(toks) == 0 || toks[len(toks)-1].kind != tokStar {
				toks = append(toks, token{kind: tokStar})
			}
		case '?':
			flush()
			toks = append(toks, token{kind: tokOne})
		case '[':
			flush()
			t, n, err := parseClass(s[i:])
			if err != nil {
				return comp{}, err
			}
			toks = append(toks, t)
			i += n - 1
		default:
			lit.WriteByte(c)
		}
	}
	flush()
	switch {
	case len(toks) == 0:
		return comp{kind: compLit}, nil
	case len(toks) == 1 && toks[0].kind == tokLit:
		return comp{kind: compLit, lit: toks[0].lit}, nil
	case len(toks) == 1 && toks[0].kind == tokStar:
		return comp{kind: compAny}, nil
	case len(toks) == 2 && toks[0].kind == tokStar && toks[1].kind == tokLit:
		return comp{kind: compSuffix, lit: toks[1].lit}, nil
	case len(toks) == 2 && toks[0].kind == tokLit && toks[1].kind == tokStar:
		return comp{kind: compPrefix, lit: toks[0].lit}, nil
	}
	return comp{kind: compTokens, toks: toks}, nil
}

// parseClass parses a [...] class at the start of s and returns it with its length.
func parseClass(s string) (token, int, error) {
	t := token{kind: tokClass}
	i := 1
	if i < len(s) && (s[i] == '!' || s[i] == '^') {
		t.negate = true
		i++
	}
	first := true
	for {
		if i >= len(s) {
			return token{}, 0, errors.New("a [ is never closed")
		}
		if s[i] == ']' && !first {
			return t, i + 1, nil
		}
		first = false
		lo, n, err := classRune(s[i:])
		if err != nil {
			return token{}, 0, err
		}
		i += n
		hi := lo
		if i+1 < len(s) && s[i] == '-' && s[i+1] != ']' {
			hi, n, err = classRune(s[i+1:])
			if err != nil {
				return token{}, 0, err
			}
			i += 1 + n
			if hi < lo {
				return token{}, 0, fmt.Errorf("the range %c-%c is reversed", lo, hi)
			}
		}
		t.ranges = append(t.ranges, lo, hi)
	}
}

func classRune(s string) (rune, int, error) {
	if s[0] == '\\' {
		if len(s) < 2 {
			return 0, 0, errors.New("a [ is never closed")
		}
		r, n := utf8.DecodeRuneInString(s[1:])
		return r, n + 1, nil
	}
	r, n := utf8.DecodeRuneInString(s)
	return r, n, nil
}

// expandBraces expands {a,b} alternatives (nested allowed; escapes kept for the
// component compiler).
func expandBraces(p string) ([]string, error) {
	open := -1
	depth := 0
	var commas []int
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			// skip a class so that braces and commas inside stay literal
			j := i + 1
			if j < len(p) && (p[j] == '!' || p[j] == '^') {
				j++
			}
			if j < len(p) && p[j] == ']' {
				j++
			}
			for j < len(p) && p[j] != ']' {
				if p[j] == '\\' {
					j++
				}
				j++
			}
			if j >= len(p) {
				return nil, errors.New("a [ is never closed")
			}
			i = j
		case '{':
			if depth == 0 {
				open = i
				commas = commas[:0]
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			if depth == 0 {
				return nil, errors.New("a } has no matching {")
			}
			depth--
			if depth > 0 {
				continue
			}
			prefix, suffix := p[:open], p[i+1:]
			var out []string
			bounds := append(append([]int{open}, commas...), i)
			for k := 0; k+1 < len(bounds); k++ {
				alt := prefix + p[bounds[k]+1:bounds[k+1]] + suffix
				sub, err := expandBraces(alt)
				if err != nil {
					return nil, err
				}
				out = append(out, sub...)
				if len(out) > maxAlternatives {
					return nil, fmt.Errorf("its braces expand to more than %d alternatives", maxAlternatives)
				}
			}
			return out, nil
		}
	}
	if depth > 0 {
		return nil, errors.New("a { is never closed")
	}
	return []string{p}, nil
}
