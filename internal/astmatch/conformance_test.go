package astmatch

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// The conformance cases (testdata/conformance/*.txt) are run through gantry and the
// real ast-grep CLI (@ast-grep/cli, pinned by testdata/astgrep's lockfile; .ci/run and
// scripts/test.sh install it): each must give the same matches — the same byte ranges
// and the same captures. A case with `context:` and `selector:` is compared with
// ast-grep's rule of that form (for fragments its CLI cannot parse alone), while gantry
// is given the bare pattern. A case with `differs:` is one where gantry deliberately
// differs (testdata/conformance/differences.md says why): it is checked to differ.
//
// Case format: a line `### <language> | <pattern>`, optional lines `context: <text>`,
// `selector: <kind>`, `rewrite: <template>`, `differs: <reason>`, then the source up to
// the next `###` (a case file's trailing blank lines are trimmed).

type confCase struct {
	file, lang, pattern, context, selector, rewrite, differs string
	line                                                     int
	src                                                      string
}

func loadCases(t *testing.T) []confCase {
	t.Helper()
	paths, _ := filepath.Glob("testdata/conformance/*.txt")
	var out []confCase
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		var cur *confCase
		var body []string
		flush := func() {
			if cur != nil {
				cur.src = strings.TrimRight(strings.Join(body, "\n"), "\n") + "\n"
				out = append(out, *cur)
			}
			body = nil
		}
		n := 0
		for sc.Scan() {
			n++
			l := sc.Text()
			if rest, ok := strings.CutPrefix(l, "### "); ok {
				flush()
				lang, pat, ok := strings.Cut(rest, " | ")
				if !ok {
					t.Fatalf("%s:%d: want `### lang | pattern`", p, n)
				}
				cur = &confCase{file: filepath.Base(p), line: n, lang: strings.TrimSpace(lang), pattern: pat}
				continue
			}
			if cur == nil {
				continue // the file's preamble
			}
			if len(body) == 0 {
				if v, ok := strings.CutPrefix(l, "context: "); ok {
					cur.context = v
					continue
				}
				if v, ok := strings.CutPrefix(l, "selector: "); ok {
					cur.selector = v
					continue
				}
				if v, ok := strings.CutPrefix(l, "rewrite: "); ok {
					cur.rewrite = strings.ReplaceAll(v, `\n`, "\n")
					continue
				}
				if v, ok := strings.CutPrefix(l, "differs: "); ok {
					cur.differs = v
					continue
				}
			}
			body = append(body, l)
		}
		flush()
		_ = f.Close()
	}
	return out
}

// astGrep is the pinned ast-grep CLI; without it the test ends as testenv.Missing says.
func astGrep(t *testing.T) string {
	t.Helper()
	bin, err := filepath.Abs("testdata/astgrep/node_modules/.bin/ast-grep")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(bin); err != nil {
		testenv.Missing(t, "the ast-grep CLI is not installed (npm ci --no-audit --no-fund --prefix internal/astmatch/testdata/astgrep)")
	}
	return bin
}

// found is one match as both sides report it.
type found struct {
	Start, End int
	Caps       string // sorted NAME=text lines
	Replaced   string // the file after --rewrite (rewrite cases only)
}

type sgMatch struct {
	Text  string `json:"text"`
	Range struct {
		ByteOffset struct{ Start, End int } `json:"byteOffset"`
	} `json:"range"`
	MetaVariables struct {
		Single map[string]struct {
			Text string `json:"text"`
		} `json:"single"`
		Multi map[string][]struct {
			Text string `json:"text"`
		} `json:"multi"`
	} `json:"metaVariables"`
	Replacement        *string                   `json:"replacement"`
	ReplacementOffsets *struct{ Start, End int } `json:"replacementOffsets"`
}

func caps(single map[string]string, multi map[string][]string) string {
	var out []string
	for k, v := range single {
		out = append(out, k+"="+v)
	}
	for k, v := range multi {
		out = append(out, k+"=["+strings.Join(v, "|")+"]")
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

// errRefused stands for ast-grep refusing a pattern (it cannot parse it).
var errRefused = []found{{Start: -1, Caps: "refused"}}

func runAstGrep(t *testing.T, bin string, c confCase, file string) []found {
	t.Helper()
	var cmd *exec.Cmd
	if c.context != "" {
		rule := fmt.Sprintf("id: case\nlanguage: %s\nrule:\n  pattern:\n    context: %s\n    selector: %s\n", c.lang, quoteYAML(c.context), c.selector)
		if c.rewrite != "" {
			rule += "fix: " + quoteYAML(c.rewrite) + "\n"
		}
		cmd = exec.Command(bin, "scan", "--inline-rules", rule, "--json=compact", file)
	} else {
		args := []string{"run", "--pattern", c.pattern, "--lang", c.lang, "--json=compact"}
		if c.rewrite != "" {
			args = append(args, "--rewrite", c.rewrite)
		}
		cmd = exec.Command(bin, append(args, file)...)
	}
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 && strings.HasPrefix(string(out), "[") {
		err = nil // no match: ast-grep exits 1, as grep does
	}
	if ee, ok := err.(*exec.ExitError); ok && strings.Contains(string(ee.Stderr), "Cannot parse query as a valid pattern") {
		return errRefused
	}
	if err != nil {
		stderr := ""
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = string(ee.Stderr)
		}
		t.Fatalf("%s:%d: ast-grep: %v\n%s", c.file, c.line, err, stderr)
	}
	var ms []sgMatch
	if err := json.Unmarshal(out, &ms); err != nil {
		t.Fatalf("%s:%d: ast-grep's output: %v\n%s", c.file, c.line, err, out)
	}
	var res []found
	for _, m := range ms {
		single := map[string]string{}
		multi := map[string][]string{}
		for k, v := range m.MetaVariables.Single {
			single[k] = v.Text
		}
		for k, v := range m.MetaVariables.Multi {
			for _, x := range v {
				multi[k] = append(multi[k], x.Text)
			}
		}
		f := found{Start: m.Range.ByteOffset.Start, End: m.Range.ByteOffset.End, Caps: caps(single, multi)}
		if c.rewrite != "" && m.Replacement != nil && m.ReplacementOffsets != nil {
			f.Replaced = c.src[:m.ReplacementOffsets.Start] + *m.Replacement + c.src[m.ReplacementOffsets.End:]
		}
		res = append(res, f)
	}
	return res
}

func quoteYAML(s string) string {
	b, _ := json.Marshal(s) // a JSON string is a YAML string
	return string(b)
}

func runGantry(c confCase) ([]found, error) {
	l := syntax.Lookup(c.lang)
	if l == nil {
		return nil, fmt.Errorf("no language %q", c.lang)
	}
	p, err := Compile(context.Background(), l, c.pattern)
	if err != nil {
		return nil, err
	}
	tree, err := syntax.Parse(context.Background(), l, []byte(c.src))
	if err != nil {
		return nil, err
	}
	var res []found
	for _, m := range p.FindAll(tree) {
		single := map[string]string{}
		multi := map[string][]string{}
		for k, v := range m.Single {
			single[k] = string(tree.Text(v))
		}
		for k, v := range m.Multi {
			for _, i := range v {
				multi[k] = append(multi[k], string(tree.Text(i)))
			}
		}
		n := tree.Nodes[m.Node]
		f := found{Start: int(n.Start), End: int(n.End), Caps: caps(single, multi)}
		if c.rewrite != "" {
			f.Replaced = c.src[:n.Start] + p.Rewrite(tree, m, c.rewrite) + c.src[m.End:]
		}
		res = append(res, f)
	}
	return res, nil
}

func TestConformanceWithAstGrep(t *testing.T) {
	needParser(t)
	bin := astGrep(t)
	cases := loadCases(t)
	dir := t.TempDir()
	langs := map[string]bool{}
	rewrites := 0
	for i, c := range cases {
		l := syntax.Lookup(c.lang)
		if l == nil {
			t.Errorf("%s:%d: no language %q", c.file, c.line, c.lang)
			continue
		}
		langs[l.Name] = true
		if c.rewrite != "" {
			rewrites++
		}
		file := filepath.Join(dir, fmt.Sprintf("case%d%s", i, l.Extensions[0]))
		if err := os.WriteFile(file, []byte(c.src), 0o644); err != nil {
			t.Fatal(err)
		}
		want := runAstGrep(t, bin, c, file)
		got, err := runGantry(c)
		if err != nil && slices.Equal(want, errRefused) && c.differs == "" {
			continue // both refuse the pattern
		}
		if err != nil {
			t.Errorf("%s:%d %s %q: gantry: %v", c.file, c.line, c.lang, c.pattern, err)
			continue
		}
		same := slices.Equal(got, want)
		switch {
		case c.differs != "" && same:
			t.Errorf("%s:%d %s %q: marked as differing (%s) but gantry and ast-grep agree: %v", c.file, c.line, c.lang, c.pattern, c.differs, got)
		case c.differs == "" && !same:
			t.Errorf("%s:%d %s %q:\n gantry   %v\n ast-grep %v", c.file, c.line, c.lang, c.pattern, got, want)
		}
	}
	t.Logf("%d cases over %d languages, %d rewrites", len(cases), len(langs), rewrites)
	if len(cases) < 80 || len(langs) < 8 || rewrites < 25 {
		t.Errorf("the conformance set is short of its bounds: %d cases (want 80), %d languages (want 8), %d rewrites (want 25)", len(cases), len(langs), rewrites)
	}
}
