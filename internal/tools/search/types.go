package search

import (
	"errors"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/walk"
)

// fileTypes are ripgrep 13's type definitions (`rg --type-list`) for the names grep
// knows; each glob is matched against a file's name.
var fileTypes = map[string][]string{
	"c":        {"*.[chH]", "*.[chH].in", "*.cats"},
	"cpp":      {"*.[ChH]", "*.[ChH].in", "*.[ch]pp", "*.[ch]pp.in", "*.[ch]xx", "*.[ch]xx.in", "*.cc", "*.cc.in", "*.hh", "*.hh.in", "*.inl"},
	"cs":       {"*.cs"},
	"csharp":   {"*.cs"},
	"css":      {"*.css", "*.scss"},
	"dart":     {"*.dart"},
	"docker":   {"*Dockerfile*"},
	"elixir":   {"*.eex", "*.ex", "*.exs"},
	"go":       {"*.go"},
	"h":        {"*.h", "*.hpp"},
	"haskell":  {"*.c2hs", "*.cpphs", "*.hs", "*.hsc", "*.lhs"},
	"html":     {"*.ejs", "*.htm", "*.html"},
	"java":     {"*.java", "*.jsp", "*.jspx", "*.properties"},
	"js":       {"*.js", "*.jsx", "*.vue"},
	"json":     {"*.json", "composer.lock"},
	"jsonl":    {"*.jsonl"},
	"kotlin":   {"*.kt", "*.kts"},
	"lua":      {"*.lua"},
	"make":     {"*.mak", "*.mk", "[Gg][Nn][Uu]makefile", "[Gg][Nn][Uu]makefile.am", "[Gg][Nn][Uu]makefile.in", "[Mm]akefile", "[Mm]akefile.am", "[Mm]akefile.in"},
	"markdown": {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"md":       {"*.markdown", "*.md", "*.mdown", "*.mkdn"},
	"perl":     {"*.PL", "*.perl", "*.pl", "*.plh", "*.plx", "*.pm", "*.t"},
	"php":      {"*.php", "*.php3", "*.php4", "*.php5", "*.phtml"},
	"py":       {"*.py"},
	"r":        {"*.R", "*.Rmd", "*.Rnw", "*.r"},
	"ruby":     {"*.gemspec", "*.rb", "*.rbw", ".irbrc", "Gemfile", "Rakefile", "config.ru"},
	"rust":     {"*.rs"},
	"scala":    {"*.sbt", "*.scala"},
	"sh":       {"*.bash", "*.bashrc", "*.csh", "*.cshrc", "*.ksh", "*.kshrc", "*.sh", "*.tcsh", "*.zsh", ".bash_login", ".bash_logout", ".bash_profile", ".bashrc", ".cshrc", ".kshrc", ".login", ".logout", ".profile", ".tcshrc", ".zlogin", ".zlogout", ".zprofile", ".zshenv", ".zshrc", "bash_login", "bash_logout", "bash_profile", "bashrc", "profile", "zlogin", "zlogout", "zprofile", "zshenv", "zshrc"},
	"sql":      {"*.psql", "*.sql"},
	"swift":    {"*.swift"},
	"tf":       {"*.tf"},
	"toml":     {"*.toml", "Cargo.lock"},
	"ts":       {"*.ts", "*.tsx"},
	"txt":      {"*.txt"},
	"xml":      {"*.dtd", "*.rng", "*.sch", "*.xhtml", "*.xjb", "*.xml", "*.xml.dist", "*.xsd", "*.xsl", "*.xslt"},
	"yaml":     {"*.yaml", "*.yml"},
	"zig":      {"*.zig"},
}

// typeAliases are other names models use for the same types.
var typeAliases = map[string]string{
	"rb": "ruby", "rs": "rust", "python": "py", "javascript": "js", "typescript": "ts",
	"yml": "yaml", "kt": "kotlin", "golang": "go", "bash": "sh", "shell": "sh",
	"c++": "cpp", "cxx": "cpp", "text": "txt", "hpp": "cpp",
}

// typeFilter returns the walk.Options.Types function of a type name, or a sentence
// naming the known types.
func typeFilter(name string) (func(rel string, isDir bool) walk.Verdict, string) {
	key := strings.ToLower(strings.TrimSpace(name))
	if a, ok := typeAliases[key]; ok {
		key = a
	}
	globs, ok := fileTypes[key]
	if !ok {
		known := make([]string, 0, len(fileTypes))
		for k := range fileTypes {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, "grep does not know the file type " + quote(name) + "; use one of " + strings.Join(known, ", ") + ", or a glob."
	}
	var gs []*walk.Glob
	for _, p := range globs {
		g, err := walk.CompileGlob(p)
		if err != nil {
			panic("search: bad type glob " + p) // a programming error
		}
		gs = append(gs, g)
	}
	return func(rel string, isDir bool) walk.Verdict {
		if isDir {
			return walk.None
		}
		name := rel[strings.LastIndexByte(rel, '/')+1:]
		for _, g := range gs {
			if g.Match(name) {
				return walk.Include
			}
		}
		return walk.Exclude
	}, ""
}

// globOverride returns the walk.Options.Override function of grep's glob argument,
// with ripgrep's --glob meaning: a file must match it (or, for a glob starting with !,
// must not), whatever the ignore files say.
func globOverride(glob string) (func(rel string, isDir bool) walk.Verdict, error) {
	ig, err := walk.NewIgnore([]string{glob})
	if err != nil {
		return nil, err
	}
	if ig.Empty() {
		return nil, errors.New("the glob " + quote(glob) + " names no file")
	}
	whitelist := ig.Whitelists() == 0 // the glob inverts: a plain glob selects
	return func(rel string, isDir bool) walk.Verdict {
		switch ig.Match(rel, isDir) {
		case walk.Exclude:
			return walk.Include
		case walk.Include:
			return walk.Exclude
		}
		if whitelist && !isDir {
			return walk.Exclude
		}
		return walk.None
	}, nil
}

func quote(s string) string { return "`" + s + "`" }
