package config

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestMemoryRulesOrderAndScope(t *testing.T) {
	e := newEnv(t)
	cwd := filepath.Join(e.root, "app")
	write(t, filepath.Join(e.home, ".claude", "CLAUDE.md"), "claude user\n")
	write(t, filepath.Join(e.home, ".claude", "rules", "style.md"), "user style rule\n")
	write(t, filepath.Join(e.home, ".claude", "rules", "go.md"), "---\npaths: \"**/*.go\"\n---\nuser go rule\n")
	write(t, filepath.Join(e.root, "CLAUDE.md"), "root claude\n")
	write(t, filepath.Join(e.root, ".claude", "CLAUDE.md"), "root dot claude\n")
	write(t, filepath.Join(e.root, ".claude", "rules", "a.md"), "---\ndescription: no paths\n---\nroot rule a\n")
	write(t, filepath.Join(e.root, ".claude", "rules", "sub", "b.md"), "root rule b, in a subfolder\n")
	write(t, filepath.Join(e.root, ".claude", "rules", "notes.txt"), "not a rule\n")
	write(t, filepath.Join(e.root, ".claude", "rules", "api.md"),
		"---\npaths:\n  - \"src/api/**/*.ts\"\n  - \"docs/*.md\"\n---\napi rule @extra.md\n")
	write(t, filepath.Join(e.root, ".claude", "rules", "extra.md"), "---\npaths: never/*.x\n---\nextra, imported\n")
	write(t, filepath.Join(e.root, "CLAUDE.local.md"), "root local\n")
	write(t, filepath.Join(cwd, ".claude", "rules", "app.md"), "---\npaths: [\"*.sql\"]\n---\napp sql rule\n")
	m, err := Memory(cwd)
	if err != nil {
		t.Fatal(err)
	}
	assertOrder(t, m.Text, "claude user", "user style rule", "root claude", "root dot claude",
		"root rule a", "root rule b, in a subfolder", "root local")
	for _, absent := range []string{"user go rule", "api rule", "app sql rule", "not a rule", "description: no paths", "extra, imported"} {
		if strings.Contains(m.Text, absent) {
			t.Errorf("%q in the start memory:\n%s", absent, m.Text)
		}
	}
	var scoped []string
	for _, r := range m.Scoped {
		scoped = append(scoped, filepath.Base(r.Path)+" "+strings.Join(r.Globs, ","))
	}
	want := []string{"go.md **/*.go", "api.md src/api/**/*.ts,docs/*.md", "extra.md never/*.x", "app.md *.sql"}
	if !reflect.DeepEqual(scoped, want) {
		t.Fatalf("scoped %v\nwant %v", scoped, want)
	}

	n := NewNested(cwd, m)
	// A file matching no glob gives nothing; the api rule's glob is relative to the
	// project root, not to the working directory.
	if text, files := n.Touch([]string{filepath.Join(cwd, "src", "api", "x.js"), filepath.Join(cwd, "q.txt")}); text != "" || files != nil {
		t.Errorf("no match: %q, %v", text, files)
	}
	text, files := n.Touch([]string{filepath.Join(e.root, "src", "api", "v1", "h.ts")})
	api := filepath.Join(e.root, ".claude", "rules", "api.md")
	extra := filepath.Join(e.root, ".claude", "rules", "extra.md")
	if !reflect.DeepEqual(files, []string{api, extra}) {
		t.Errorf("files %v", files)
	}
	assertOrder(t, text, "Contents of "+api+":\n\napi rule", "Contents of "+extra+" (imported by "+api+")")
	if strings.Contains(text, "src/api/**") {
		t.Errorf("the rule's front matter given:\n%s", text)
	}
	// Once a session. The imported rule stays pending as a rule of its own (its
	// file is given already, so a match would add nothing).
	if text, _ := n.Touch([]string{filepath.Join(e.root, "docs", "x.md")}); text != "" {
		t.Errorf("second touch: %q", text)
	}
	text, _ = n.Touch([]string{filepath.Join(cwd, "db", "q.sql"), filepath.Join(cwd, "main.go")})
	assertOrder(t, text, "user go rule")
	if strings.Contains(text, "app sql rule") {
		t.Errorf("app.md's *.sql matched a file in a subfolder:\n%s", text)
	}
	text, _ = n.Touch([]string{filepath.Join(cwd, "q.sql")})
	if !strings.Contains(text, "app sql rule") {
		t.Errorf("app.md not given: %q", text)
	}
	var pending []string
	for _, r := range n.Pending() {
		pending = append(pending, filepath.Base(r.Path))
	}
	if !reflect.DeepEqual(pending, []string{"extra.md"}) {
		t.Errorf("pending %v", pending)
	}
	if g := n.Given(); len(g) != 4 {
		t.Errorf("given %v", g)
	}
}

func TestNestedRestoreRules(t *testing.T) {
	e := newEnv(t)
	rule := filepath.Join(e.root, ".claude", "rules", "ts.md")
	write(t, rule, "---\npaths: \"**/*.ts\"\n---\nts rule\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	first := NewNested(e.root, m)
	text, _ := first.Touch([]string{filepath.Join(e.root, "a.ts")})
	if !strings.Contains(text, "ts rule") {
		t.Fatalf("not given: %q", text)
	}
	resumed := NewNested(e.root, m)
	resumed.Restore(text)
	if len(resumed.Pending()) != 0 || !strings.Contains(resumed.Text(), "ts rule") {
		t.Errorf("pending %v, text %q", resumed.Pending(), resumed.Text())
	}
	if text, _ := resumed.Touch([]string{filepath.Join(e.root, "b.ts")}); text != "" {
		t.Errorf("given twice: %q", text)
	}
}

func TestParseRule(t *testing.T) {
	for _, c := range []struct {
		in, body string
		globs    []string
	}{
		{"plain\n", "plain\n", nil},
		{"---\npaths: a/*.go\n---\nbody\n", "body\n", []string{"a/*.go"}},
		{"---\npaths:\n  - x\n  - \"{a,b}/**\"\n---\n\nbody", "body", []string{"x", "{a,b}/**"}},
		{"---\npaths: \"**/*.ts, **/*.tsx\"\n---\nbody", "body", []string{"**/*.ts", "**/*.tsx"}},
		{"---\npaths: src/**/*.ts,src/lib/db.ts , {a,b}/*.go,\n---\nbody", "body", []string{"src/**/*.ts", "src/lib/db.ts", "{a,b}/*.go"}},
		{"---\n---\nbody", "body", nil},
		{"---\npaths: [unclosed\n---\nbody", "---\npaths: [unclosed\n---\nbody", nil},
		{"---\npaths: x\nno end", "---\npaths: x\nno end", nil},
	} {
		body, globs := parseRule(c.in)
		if body != c.body || !reflect.DeepEqual(globs, c.globs) {
			t.Errorf("parseRule(%q) = %q, %q; want %q, %q", c.in, body, globs, c.body, c.globs)
		}
	}
}

// The .claude/rules of a folder below the working directory are read on the first
// touch of a file under it, once: those without paths given then, with the folder's
// CLAUDE.md before them and CLAUDE.local.md after; those with paths (relative to that
// folder) on the first touch of a file they match. A resumed conversation's nested
// rules are given again without a second copy.
func TestNestedRulesBelowTheWorkingDirectory(t *testing.T) {
	e := newEnv(t)
	sub := filepath.Join(e.root, "svc", "api")
	write(t, filepath.Join(sub, "CLAUDE.md"), "api claude\n")
	write(t, filepath.Join(sub, ".claude", "rules", "style.md"), "api style rule\n")
	write(t, filepath.Join(sub, ".claude", "rules", "sql.md"), "---\npaths: \"db/*.sql\"\n---\napi sql rule\n")
	write(t, filepath.Join(sub, "CLAUDE.local.md"), "api local\n")
	m, err := Memory(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(m.Text, "api") || len(m.Scoped) != 0 {
		t.Fatalf("a folder below the working directory in the start memory: %q %v", m.Text, m.Scoped)
	}
	n := NewNested(e.root, m)
	if text, _ := n.Touch([]string{filepath.Join(e.root, "svc", "x.go")}); text != "" {
		t.Errorf("a touch above the folder gave %q", text)
	}
	text, files := n.Touch([]string{filepath.Join(sub, "h.go")})
	style := filepath.Join(sub, ".claude", "rules", "style.md")
	assertOrder(t, text, "api claude", "Contents of "+style+":\n\napi style rule", "api local")
	if strings.Contains(text, "api sql rule") || len(files) != 3 {
		t.Errorf("first touch: files %v\n%s", files, text)
	}
	if text, _ := n.Touch([]string{filepath.Join(sub, "h.go"), filepath.Join(sub, "db", "x.go")}); text != "" {
		t.Errorf("a second touch gave %q", text)
	}
	sql := filepath.Join(sub, ".claude", "rules", "sql.md")
	text, files = n.Touch([]string{filepath.Join(sub, "db", "q.sql")})
	if !reflect.DeepEqual(files, []string{sql}) || !strings.Contains(text, "api sql rule") || strings.Contains(text, "paths:") {
		t.Errorf("the sql rule: files %v\n%s", files, text)
	}
	if text, _ := n.Touch([]string{filepath.Join(sub, "db", "r.sql")}); text != "" {
		t.Errorf("the sql rule given twice: %q", text)
	}
	// A rule with paths matched at the first touch of its folder is given with it.
	n = NewNested(e.root, m)
	_, files = n.Touch([]string{filepath.Join(sub, "db", "q.sql")})
	if !reflect.DeepEqual(files, []string{filepath.Join(sub, "CLAUDE.md"), style, filepath.Join(sub, "CLAUDE.local.md"), sql}) {
		t.Errorf("first touch of a matching file: %v", files)
	}

	r := NewNested(e.root, m)
	r.Restore(n.Text())
	if !reflect.DeepEqual(r.Given(), n.Given()) {
		t.Errorf("restored %v, want %v", r.Given(), n.Given())
	}
	if text, _ := r.Touch([]string{filepath.Join(sub, "db", "q.sql")}); text != "" {
		t.Errorf("after a restore a touch gave %q", text)
	}
}
