package app

import (
	"fmt"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// importRule is one line of docs/architecture.md's "Imports": the packages it
// governs (from, less unless), and either the only gantry packages they may import
// (only, their own folder's packages always allowed) or those they must never import
// (never). A pattern names a folder relative to the module's root; "x/..." is x and
// every package under it.
type importRule struct {
	doc    string // the rule's sentence, word for word as the doc states it
	from   []string
	unless []string
	only   []string
	never  []string
}

// faces are the faces: each knows the App, the seams' vocabulary and the shared
// face code, and nothing else of gantry's.
var faces = []string{"internal/ui/acp/...", "internal/ui/printmode/...", "internal/ui/mcpserve/...", "internal/ui/tui"}

// vocabulary is what the seams speak: the events and questions of face, the tool
// calls of tool, the models' messages of llm, the modes of permission.
var vocabulary = []string{"internal/face", "internal/tool", "internal/llm", "internal/permission"}

// importRules is the table docs/architecture.md's "Imports" states, in its order.
var importRules = []importRule{
	{
		doc:  "The vocabulary (`llm`, `tool`, `face`, `permission`) imports only itself, `contain` (for `permission`'s exec guard) and `editdist` (the nearest name of a mistyped one).",
		from: vocabulary,
		only: append([]string{"internal/contain", "internal/editdist"}, vocabulary...),
	},
	{
		doc:  "`agent` knows `llm`, `tool`, `permission`, `face` and `compact`.",
		from: []string{"internal/agent"},
		only: []string{"internal/llm", "internal/tool", "internal/permission", "internal/face", "internal/compact"},
	},
	{
		doc:    "Only `app` imports `agent`.",
		from:   []string{"internal/...", "cmd/..."},
		unless: []string{"internal/app", "internal/agent"},
		never:  []string{"internal/agent"},
	},
	{
		doc:    "`app` knows everything below it and no face; no core package imports `app`.",
		from:   []string{"internal/..."},
		unless: []string{"internal/app", "internal/ui/..."},
		never:  []string{"internal/app"},
	},
	{
		doc:    "The core (everything in `internal/` but `ui/`) imports no face and no shared face code.",
		from:   []string{"internal/..."},
		unless: []string{"internal/ui/..."},
		never:  []string{"internal/ui/..."},
	},
	{
		doc:   "A tool (`tools/*`) knows `tool`, `face` for the Asker, `config` for a section of its own, and what its own job needs, never `agent`, `app`, `session` or a face.",
		from:  []string{"internal/tools/..."},
		never: []string{"internal/agent", "internal/app", "internal/session", "internal/ui/...", "cmd/..."},
	},
	{
		doc:    "A tool package is imported only by `app`, which registers it, by `refs`, which expands a prompt's `@skill` as `read_skill` loads it, and by another tool using it as a library (`lsptool` and `structural` use `fs`'s reads and writes, `task` the todo list).",
		from:   []string{"internal/...", "cmd/..."},
		unless: []string{"internal/app", "internal/refs", "internal/tools/..."},
		never:  []string{"internal/tools/..."},
	},
	{
		doc:  "A face (`ui/acp`, `ui/printmode`, `ui/mcpserve`, `ui/tui`) knows `app`, the vocabulary, `session` (the stored sessions it lists to resume), its own parts and the shared `ui/termtext` and `ui/mdterm`, never another face, a tool or any other core package: what else it needs the App gives it (app/facetypes.go).",
		from: faces,
		only: append([]string{"internal/app", "internal/session", "internal/ui/termtext", "internal/ui/mdterm"}, vocabulary...),
	},
	{
		doc:  "`ui/tui/complete`, the terminal UI's completion, knows only the file walker (`walk`).",
		from: []string{"internal/ui/tui/complete"},
		only: []string{"internal/walk"},
	},
	{
		doc:  "`ui/tui/history`, the prompt history, knows nothing of gantry's.",
		from: []string{"internal/ui/tui/history"},
		only: []string{},
	},
	{
		doc:  "`ui/tui/setup`, the first run's setup, knows only `app` and `config` (it writes the config file the person chose).",
		from: []string{"internal/ui/tui/setup"},
		only: []string{"internal/app", "internal/config"},
	},
	{
		doc:  "The shared face code (`ui/termtext`, `ui/mdterm`) knows the vocabulary, never `app` or a face.",
		from: []string{"internal/ui/termtext", "internal/ui/mdterm"},
		only: vocabulary,
	},
	{
		doc:   "`cmd/gantry` builds an App and hands it to a face: it knows `app`, the faces and the core, never a tool.",
		from:  []string{"cmd/..."},
		never: []string{"internal/tools/..."},
	},
}

// matches says whether the package pkg is one the pattern names.
func matches(pattern, pkg string) bool {
	if dir, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pkg == dir || strings.HasPrefix(pkg, dir+"/")
	}
	return pkg == pattern
}

func matchesAny(patterns []string, pkg string) bool {
	for _, p := range patterns {
		if matches(p, pkg) {
			return true
		}
	}
	return false
}

// broken says whether the package pkg breaks the rule by importing imp.
func (r importRule) broken(pkg, imp string) bool {
	if !matchesAny(r.from, pkg) || matchesAny(r.unless, pkg) {
		return false
	}
	if matchesAny(r.never, imp) {
		return true
	}
	if r.only != nil {
		own := imp == pkg || strings.HasPrefix(imp, pkg+"/")
		return !own && !matchesAny(r.only, imp)
	}
	return false
}

// importViolations checks the imports of one file of the package pkg (both
// relative to the module's root) against every rule.
func importViolations(rules []importRule, file, pkg string, imports []string) []string {
	var out []string
	for _, imp := range imports {
		for _, r := range rules {
			if r.broken(pkg, imp) {
				out = append(out, fmt.Sprintf("%s imports %s, against the rule %q", file, imp, r.doc))
			}
		}
	}
	return out
}

const modulePath = "github.com/gantry-dev/gantry/"

// goFile is a Go file's package folder and the gantry packages it imports.
type goFile struct {
	pkg     string
	imports []string
}

// gantryImports lists, for each non-test Go file under root (tests may reach across
// the rules to put real pieces together), its package's folder and the gantry
// packages it imports, both relative to the module's root.
func gantryImports(t *testing.T, root string) map[string]goFile {
	t.Helper()
	out := map[string]goFile{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			n := d.Name()
			if path != root && (n == "testdata" || n == "node_modules" || n == "third_party" || strings.HasPrefix(n, ".")) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, parser.ImportsOnly)
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(root, path)
		if err != nil {
			return err
		}
		rel = filepath.ToSlash(rel)
		var imps []string
		for _, imp := range f.Imports {
			p, err := strconv.Unquote(imp.Path.Value)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			if p, ok := strings.CutPrefix(p, modulePath); ok {
				imps = append(imps, p)
			}
		}
		out[rel] = goFile{pkg: filepath.ToSlash(filepath.Dir(filepath.FromSlash(rel))), imports: imps}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestImportRules keeps the arrows of docs/architecture.md: every Go file gantry
// is built from imports only what the rules of its package allow. bench/ measures
// packages one by one and is under no rule.
func TestImportRules(t *testing.T) {
	files := gantryImports(t, "../..")
	if len(files) < 300 {
		t.Fatalf("only %d Go files were read: the walk is wrong", len(files))
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	governed := map[string]bool{}
	for _, f := range names {
		pkg := files[f].pkg
		for _, v := range importViolations(importRules, f, pkg, files[f].imports) {
			t.Error(v)
		}
		for _, r := range importRules {
			if matchesAny(r.from, pkg) && !matchesAny(r.unless, pkg) {
				governed[r.doc] = true
			}
		}
	}
	for _, r := range importRules {
		if !governed[r.doc] {
			t.Errorf("the rule %q governs no package: its patterns are wrong", r.doc)
		}
	}
}

// TestImportRulesAreTheDocs fails when docs/architecture.md and the table differ:
// each rule's sentence is one line of the doc's list, and the list has no other.
func TestImportRulesAreTheDocs(t *testing.T) {
	b, err := os.ReadFile("../../docs/architecture.md")
	if err != nil {
		t.Fatal(err)
	}
	doc := string(b)
	start := strings.Index(doc, "\n## Imports\n")
	if start < 0 {
		t.Fatal(`docs/architecture.md has no "## Imports" section`)
	}
	section := doc[start+1:]
	if end := strings.Index(section[3:], "\n## "); end >= 0 {
		section = section[:end+3]
	}
	var listed []string
	for _, line := range strings.Split(section, "\n") {
		if s, ok := strings.CutPrefix(line, "- "); ok {
			listed = append(listed, s)
		} else if len(listed) > 0 && strings.HasPrefix(line, "  ") && strings.TrimSpace(line) != "" {
			listed[len(listed)-1] += " " + strings.TrimSpace(line)
		}
	}
	var want []string
	for _, r := range importRules {
		want = append(want, r.doc)
	}
	if strings.Join(listed, "\n") != strings.Join(want, "\n") {
		t.Errorf("docs/architecture.md's Imports list:\n%s\n\nthe table in architecture_test.go:\n%s", strings.Join(listed, "\n"), strings.Join(want, "\n"))
	}
}

// The check itself: a face importing a tool, a tool importing the App and the core
// importing a face are each found, with the file and the rule; allowed imports are not.
func TestImportViolationsFindsEachKind(t *testing.T) {
	cases := []struct {
		pkg, imp string
		broken   bool
	}{
		{"internal/ui/tui", "internal/tools/fs", true},
		{"internal/ui/tui", "internal/checkpoint", true},
		{"internal/ui/tui", "internal/ui/acp", true},
		{"internal/ui/tui", "internal/app", false},
		{"internal/ui/tui", "internal/ui/tui/history", false},
		{"internal/tools/shell", "internal/app", true},
		{"internal/tools/shell", "internal/ui/termtext", true},
		{"internal/tools/shell", "internal/contain", false},
		{"internal/session", "internal/ui/termtext", true},
		{"internal/agent", "internal/session", true},
		{"internal/agent", "internal/compact", false},
		{"internal/hook", "internal/tools/fs", true},
		{"internal/app", "internal/tools/fs", false},
		{"internal/tool", "internal/face", false},
		{"internal/tool", "internal/session", true},
		{"cmd/gantry", "internal/tools/fs", true},
		{"cmd/gantry", "internal/ui/tui", false},
	}
	for _, c := range cases {
		got := importViolations(importRules, c.pkg+"/x.go", c.pkg, []string{c.imp})
		if (len(got) > 0) != c.broken {
			t.Errorf("%s importing %s: violations %q, want broken=%v", c.pkg, c.imp, got, c.broken)
		}
		for _, v := range got {
			if !strings.HasPrefix(v, c.pkg+"/x.go imports "+c.imp+", against the rule ") {
				t.Errorf("the message %q names neither the file nor the rule", v)
			}
		}
	}
}
