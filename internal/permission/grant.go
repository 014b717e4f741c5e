package permission

import (
	"fmt"
	"net/url"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Grant is what an "always" answer to a call remembers: allow rules, and the words
// that name them for the person, shown in the question before they pick it. A grant
// with no rules remembers the call exactly (its tool and principal).
type Grant struct {
	Rules []string
	// Label names what the rules allow: "`go test` commands", "edit_file in this
	// project", "this command".
	Label string
	// ShowRules says the rules tell the person more than the label (a command's
	// pattern), so that a question shows them too.
	ShowRules bool
}

// String is the grant as a question shows it: the label, and the rules when they
// tell more.
func (g Grant) String() string {
	if len(g.Rules) == 0 || !g.ShowRules {
		return g.Label
	}
	return g.Label + " (" + strings.Join(g.Rules, ", ") + ")"
}

// SetProject names the project root that grants of file tools are bounded by.
func (e *Engine) SetProject(root string) {
	e.mu.Lock()
	e.project = filepath.Clean(root)
	e.root = resolvePath(root)
	e.mu.Unlock()
}

// Suggest returns what an "always" answer to c would remember, never broader than
// what was asked:
//   - bash: for each simple command, its program and subcommand (`go test ./...` →
//     bash:go test( .*)?, `npm run build` → bash:npm run build( .*)?), the program
//     alone for programs that only read or print (`echo`, `ls`, `cat`), else the
//     command exactly;
//   - a tool that touches paths, all inside the project: that tool on the project;
//   - a URL: that tool on the URL's origin;
//   - a call with no principal: the tool;
//   - else the call exactly.
func (e *Engine) Suggest(c Call) Grant {
	e.mu.Lock()
	project := e.project
	e.mu.Unlock()
	if c.Tool == "bash" {
		return suggestBash(c.Principal)
	}
	p := strings.TrimSpace(c.Principal)
	if c.Files == tool.FilesWrite {
		// A protected path is granted by itself, never with the project.
		var rules []string
		e.mu.Lock()
		for _, x := range c.Paths {
			if cp := e.canon(x); e.protected(cp) != "" {
				rules = append(rules, c.Tool+":"+regexp.QuoteMeta(cp.rel))
			}
		}
		e.mu.Unlock()
		if len(rules) > 0 {
			return Grant{Rules: rules, Label: c.Tool + " of " + strings.Join(stripQuote(rules), ", "), ShowRules: false}
		}
	}
	if len(c.Paths) > 0 && project != "" && allInside(c.Paths, project) {
		return Grant{Rules: []string{c.Tool + ":" + regexp.QuoteMeta(project) + "/.*"}, Label: c.Tool + " in this project"}
	}
	if u, err := url.Parse(p); err == nil && (u.Scheme == "http" || u.Scheme == "https") && u.Host != "" && u.User == nil {
		origin := u.Scheme + "://" + u.Host
		return Grant{Rules: []string{c.Tool + ":" + regexp.QuoteMeta(origin) + "(/.*)?"}, Label: c.Tool + " of " + u.Host}
	}
	if p == "" {
		return Grant{Rules: []string{c.Tool}, Label: "every " + c.Tool + " call"}
	}
	return Grant{Rules: []string{c.Tool + ":" + regexp.QuoteMeta(p)}, Label: "this " + c.Tool + " call"}
}

// stripQuote names the paths of path rules, for a label.
func stripQuote(rules []string) []string {
	out := make([]string, len(rules))
	for i, r := range rules {
		_, pat, _ := strings.Cut(r, ":")
		out[i] = strings.ReplaceAll(pat, `\`, "")
	}
	return out
}

// allInside reports whether every path is the root or below it.
func allInside(paths []string, root string) bool {
	for _, p := range paths {
		r, err := filepath.Rel(root, filepath.Clean(p))
		if err != nil || r == ".." || strings.HasPrefix(r, "../") || filepath.IsAbs(r) {
			return false
		}
	}
	return true
}

// Subcommands names the programs whose first argument is a subcommand that deserves a
// rule of its own (`go test`, `git status`), and, for each, the subcommands whose next
// word is a name as well (`npm run build`, `docker compose up`). Data, not code:
// a row per program.
var Subcommands = map[string][]string{
	"apt": nil, "apt-get": nil, "brew": nil, "bun": {"run", "x"}, "bundle": {"exec"},
	"cargo": nil, "composer": {"run", "run-script"}, "conda": nil, "deno": {"task", "run"},
	"docker": {"compose", "container", "image"}, "dotnet": nil, "gh": {"pr", "issue", "repo", "release", "run", "workflow"},
	"git": {"stash", "remote", "submodule", "worktree"}, "go": {"mod", "tool", "work"}, "gradle": nil, "gradlew": nil,
	"helm": nil, "kubectl": nil, "make": nil, "mix": nil, "mvn": nil, "npm": {"run", "run-script", "exec", "x"},
	"npx": nil, "pip": nil, "pip3": nil, "pnpm": {"run", "exec", "dlx"}, "podman": {"compose"}, "poetry": {"run"},
	"rails": nil, "rake": nil, "rustup": nil, "swift": nil, "systemctl": nil, "terraform": nil,
	"uv": {"run", "pip", "tool"}, "yarn": {"run", "exec", "dlx", "workspace"},
}

// ReadOnlyPrograms are programs that only read or print, so that "always" on one call
// may allow every call of the program.
var ReadOnlyPrograms = []string{
	":", "basename", "cat", "cd", "cut", "date", "df", "diff", "dirname", "du", "echo", "false", "fd", "fdfind",
	"file", "grep", "head", "hostname", "id", "jq", "less", "ls", "md5sum", "nl", "od", "printf", "pwd", "readlink",
	"realpath", "rg", "sha1sum", "sha256sum", "sort", "stat", "tail", "test", "tr", "tree", "true", "type", "uname",
	"uniq", "wc", "which", "whoami", "xxd",
}

// moduleFlag names interpreters whose -m MODULE runs a module (python -m pytest).
var moduleFlag = []string{"python", "python3"}

// subcommandWord is a word that can be a subcommand: no path, option or expansion.
var subcommandWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:@-]*$`) })

// suggestBash is the grant of a bash command: one rule per simple command it runs.
func suggestBash(command string) Grant {
	cmds, err := Commands(command)
	if err != nil || len(cmds) == 0 {
		return Grant{Label: "this command (exactly)"}
	}
	var rules, names []string
	exact := false
	for _, sc := range cmds {
		if sc.Opaque || sc.RunsCode {
			return Grant{Label: "this command (exactly)"}
		}
		rule, name := commandRule(sc)
		if name == "" {
			exact = true
		}
		if !slices.Contains(rules, rule) {
			rules = append(rules, rule)
			if name != "" && !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	label := "this command"
	switch {
	case exact && len(names) > 0:
		label = "this command and " + quoteJoin(names) + " commands"
	case len(names) > 0:
		label = quoteJoin(names) + " commands"
	}
	return Grant{Rules: rules, Label: label, ShowRules: true}
}

// commandRule is the rule for one simple command, and the words it allows (""
// when the rule is the command exactly).
func commandRule(sc SimpleCommand) (rule, name string) {
	words := strings.Fields(sc.Text)
	exact := "bash:" + regexp.QuoteMeta(sc.Text)
	if len(words) == 0 {
		return exact, ""
	}
	prog := words[0]
	base := sc.Name
	if base == "" {
		base = filepath.Base(prog)
	}
	prefix := func(n int) (string, string) {
		p := strings.Join(words[:n], " ")
		return "bash:" + regexp.QuoteMeta(p) + "( .*)?", p
	}
	if slices.Contains(ReadOnlyPrograms, base) && !strings.Contains(prog, "/") {
		return prefix(1)
	}
	if slices.Contains(moduleFlag, base) && len(words) >= 3 && words[1] == "-m" && subcommandWord().MatchString(words[2]) {
		return prefix(3)
	}
	more, ok := Subcommands[strings.TrimPrefix(base, "./")]
	if !ok || len(words) < 2 || !subcommandWord().MatchString(words[1]) {
		return exact, ""
	}
	if slices.Contains(more, words[1]) && len(words) >= 3 && subcommandWord().MatchString(words[2]) {
		return prefix(3)
	}
	return prefix(2)
}

func quoteJoin(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = "`" + n + "`"
	}
	switch len(q) {
	case 1:
		return q[0]
	case 2:
		return q[0] + " and " + q[1]
	}
	return strings.Join(q[:len(q)-1], ", ") + " and " + q[len(q)-1]
}

// Grant remembers an "always" answer for the rest of the session: the grant's
// rules, or the call exactly when it has none.
func (e *Engine) Grant(c Call, g Grant) error {
	if len(g.Rules) == 0 {
		e.Remember(c, true)
		return nil
	}
	if err := e.AllowForSession(g.Rules); err != nil {
		e.Remember(c, true)
		return fmt.Errorf("the rule could not be kept (%v); this exact call is allowed for the session", err)
	}
	return nil
}

// SaveGrant writes a grant's rules into <projectRoot>/.gantry/permissions.yaml and
// adds them to the session; a grant with no rules saves the call's exact rules
// (SaveRule). It returns the rules written, joined by ", ".
func (e *Engine) SaveGrant(projectRoot string, c Call, g Grant) (string, error) {
	if len(g.Rules) == 0 {
		return e.SaveRule(projectRoot, c)
	}
	file := filepath.Join(projectRoot, ProjectRulesFile)
	parsed, err := parseRules(g.Rules, file)
	if err != nil {
		return "", err
	}
	if err := appendAllowRules(file, g.Rules); err != nil {
		return "", err
	}
	e.mu.Lock()
	e.allow = append(e.allow, parsed...)
	e.mu.Unlock()
	return strings.Join(g.Rules, ", "), nil
}
