package search

import (
	"os/exec"
	"sort"
	"strings"
	"testing"
)

// rgCase is one query run by grep and by rg over the Go sources; the outputs are
// compared as sorted line sets (rg prints files in no particular order).
type rgCase struct {
	name string
	args A        // grep's arguments (pattern, path are added)
	rg   []string // rg's flags
}

var rgCases = []rgCase{
	{"literal files", A{"pattern": "func main"}, []string{"-l", "func main"}},
	{"literal -i files", A{"pattern": "FUNC MAIN", "ignore_case": true}, []string{"-l", "-i", "FUNC MAIN"}},
	{"-i with k and s", A{"pattern": "unsafe.Sizeof", "ignore_case": true}, []string{"-l", "-i", "unsafe.Sizeof"}},
	{"regex with literal", A{"pattern": `func \w+Handler`}, []string{"-l", `func \w+Handler`}},
	{"regex inner literal", A{"pattern": `\w+_test\(`}, []string{"-l", `\w+_test\(`}},
	{"alternation", A{"pattern": `TODO\(|FIXME|XXX:`}, []string{"-l", `TODO\(|FIXME|XXX:`}},
	{"no literal", A{"pattern": `\bx[0-9]{2}[a-z]`, "output_mode": "count"}, []string{"-c", `\bx[0-9]{2}[a-z]`}},
	{"date count", A{"pattern": `[0-9]{4}-[0-9]{2}-[0-9]{2}`, "output_mode": "count"}, []string{"-c", `[0-9]{4}-[0-9]{2}-[0-9]{2}`}},
	{"classes only, scanned", A{"pattern": `[A-Z][a-z]+[0-9]{3}`, "output_mode": "count"}, []string{"-c", `[A-Z][a-z]+[0-9]{3}`}},
	{"byte window count", A{"pattern": `[0-9]+x[0-9a-f]+[g-z]`, "output_mode": "count"}, []string{"-c", `[0-9]+x[0-9a-f]+[g-z]`}},
	{"byte window -i", A{"pattern": `\bq[A-F]\d`, "ignore_case": true, "output_mode": "count"}, []string{"-c", "-i", `\bq[A-F]\d`}},
	{"type go count", A{"pattern": "errors.New", "type": "go", "output_mode": "count"}, []string{"-c", "-t", "go", "errors.New"}},
	{"glob content", A{"pattern": `Deprecated:`, "glob": "*.go", "path": "net/http", "output_mode": "content"}, []string{"-n", "-g", "*.go", "Deprecated:", "net/http"}},
	{"negated glob", A{"pattern": `package main`, "glob": "!*_test.go", "path": "cmd/go"}, []string{"-l", "-g", "!*_test.go", "package main", "cmd/go"}},
	{"content -i", A{"pattern": `serveHTTP\(`, "ignore_case": true, "output_mode": "content", "path": "net"}, []string{"-n", "-i", `serveHTTP\(`, "net"}},
	{"context", A{"pattern": `panic\("unreachable"\)`, "output_mode": "content", "context": 2, "path": "go"}, []string{"-n", "-C", "2", `panic\("unreachable"\)`, "go"}},
	{"count everything", A{"pattern": `^package `, "output_mode": "count", "path": "strings"}, []string{"-c", `^package `, "strings"}},
	{"anchored end", A{"pattern": `\{$`, "output_mode": "count", "path": "sort"}, []string{"-c", `\{$`, "sort"}},
}

func TestGrepEqualsRipgrep(t *testing.T) {
	rg := lookRg(t)
	src := gorootSrc(t)
	for _, c := range rgCases {
		t.Run(c.name, func(t *testing.T) {
			args := A{"head_limit": 0}
			for k, v := range c.args {
				args[k] = v
			}
			r := call(t, Grep(Options{MaxOutput: 1 << 30}), src, args)
			wantOK(t, r)
			got := strings.Split(r.Text, "\n")
			cmd := exec.Command(rg, append([]string{"--no-config", "--no-heading", "--color=never"}, c.rg...)...)
			cmd.Dir = src
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("rg: %v", err)
			}
			want := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
			if c.args["context"] != nil {
				// group order differs between tools: compare the lines, not the separators
				got, want = dropSeparators(got), dropSeparators(want)
			}
			for i := range want {
				want[i] = strings.TrimSuffix(want[i], "\r")
			}
			sort.Strings(got)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Fatalf("grep and rg differ:\n%s", diffSets(got, want))
			}
			if len(got) < 2 {
				t.Fatalf("a weak case: %q", got)
			}
		})
	}
}

func dropSeparators(ls []string) []string {
	var out []string
	for _, l := range ls {
		if l != "--" {
			out = append(out, l)
		}
	}
	return out
}

func diffSets(got, want []string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, s := range got {
		g[s] = true
	}
	for _, s := range want {
		w[s] = true
	}
	var b strings.Builder
	n := 0
	for _, s := range got {
		if !w[s] && n < 10 {
			b.WriteString("only grep: " + s + "\n")
			n++
		}
	}
	for _, s := range want {
		if !g[s] && n < 20 {
			b.WriteString("only rg:   " + s + "\n")
			n++
		}
	}
	return b.String()
}
