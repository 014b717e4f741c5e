package permission

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The paths of read deny rules, as the sandbox masks them.
func TestDeniedReadPaths(t *testing.T) {
	cases := []struct {
		rule string
		want []string // relative to the project root, or absolute
	}{
		{`read_file:\.env`, []string{".env"}},
		{`grep:config/prod\.yaml`, []string{"config/prod.yaml"}},
		{`read_file:secret/.*`, []string{"secret"}},
		{`read_file:secret(/.*)?`, []string{"secret"}},
		{`read_file:secret/.*(/.*)?`, []string{"secret"}}, // Claude's Read(./secret/**)
		{`read_file:.*\.env`, []string{".env", "src/.env", "src/deep/x.env"}},
		{`read_file:(.*/)?\.env`, []string{".env", "src/.env"}},
		{`read_file:\.env(/.*)?`, []string{".env"}},                   // Claude's Read(./.env)
		{`read_file:(.*/)?\.env(/.*)?`, []string{".env", "src/.env"}}, // Claude's Read(.env)
		{`read_file:secret/.*\.key`, []string{"secret/a.key"}},
		{`read_file:/etc/ssl/private/.*`, []string{"/etc/ssl/private"}},
		{`read_file`, nil},         // every file: nothing to mask
		{`write_file:\.env`, nil},  // a write rule
		{`bash:cat .*`, nil},       // not a path rule
		{`read_file:.*\.pem`, nil}, // no such file now
		{`read_file:node_modules/.*`, []string{"node_modules"}}, // named, not walked
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			e, root := project(t, ModeYolo, nil, []string{c.rule})
			for _, f := range []string{".env", "src/.env", "src/deep/x.env", "secret/a.key", "secret/b.txt", ".git/x.env", "node_modules/p/.env", "src/ok.go"} {
				p := filepath.Join(root, f)
				os.MkdirAll(filepath.Dir(p), 0o755)
				if err := os.WriteFile(p, []byte("x"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			var want []string
			for _, w := range c.want {
				if !filepath.IsAbs(w) {
					w = filepath.Join(root, w)
				}
				want = append(want, w)
			}
			if got := e.DeniedReadPaths(); strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("got %q, want %q", got, want)
			}
		})
	}
}

// The walk is bounded: a pattern over a huge tree stops at maxMatches files.
func TestDeniedReadPathsBounded(t *testing.T) {
	e, root := project(t, ModeYolo, nil, []string{`read_file:.*\.env`})
	for i := range maxMatches + 10 {
		os.WriteFile(filepath.Join(root, "src", "f"+strconv.Itoa(i)+".env"), nil, 0o644)
	}
	if n := len(e.DeniedReadPaths()); n != maxMatches {
		t.Errorf("%d paths, want %d", n, maxMatches)
	}
}

// The programs of whole-program deny rules; argument rules are not.
func TestDeniedPrograms(t *testing.T) {
	cases := []struct {
		rule string
		want string
	}{
		{`bash:mv`, "mv"},
		{`bash:mv( .*)?`, "mv"},
		{`bash:mv .*`, "mv"},
		{`bash:mv(?: .*)?`, "mv"},
		{`bash:mv(\s.*)?`, "mv"}, // Claude's Bash(mv:*)
		{`bash:(mv|rm)( .*)?`, "mv rm"},
		{`bash:(?:curl|wget) .*`, "curl wget"},
		{`bash:/usr/bin/mv .*`, "/usr/bin/mv"},
		{`bash:python3\.11( .*)?`, "python3.11"},
		{`bash:git-push( .*)?`, "git-push"},
		{`bash:git .*`, "git"},
		{`bash:git push.*`, ""},
		{`bash:git push( .*)?`, ""},
		{`bash:rm -rf .*`, ""},
		{`bash:mv.*`, ""},     // mvx too: not a program's name
		{`bash:m.( .*)?`, ""}, // a pattern of names
		{`bash:(mv|r.)( .*)?`, ""},
		{`bash`, ""},         // every command: the parser's
		{`read_file:mv`, ""}, // not bash
		{`bash:.*`, ""},
	}
	for _, c := range cases {
		t.Run(c.rule, func(t *testing.T) {
			e, err := NewEngine(ModeYolo, nil, []string{c.rule})
			if err != nil {
				t.Fatal(err)
			}
			if got := strings.Join(e.DeniedPrograms(), " "); got != c.want {
				t.Errorf("got %q, want %q", got, c.want)
			}
		})
	}
}
