package search

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/walk"
)

//go:embed grep.md
var grepDoc string

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema_description:"Regular expression (Go RE2 syntax) searched line by line."`
	Path       string `json:"path,omitempty" jsonschema_description:"File or folder to search (default: the working directory)."`
	Glob       string `json:"glob,omitempty" jsonschema_description:"Only files matching this glob (e.g. *.go or src/**/*.{ts,tsx}); a leading ! excludes instead."`
	Type       string `json:"type,omitempty" jsonschema_description:"Only files of this ripgrep type (go, py, ts, js, rust, java, c, cpp, md, json, yaml, …)."`
	OutputMode string `json:"output_mode,omitempty" jsonschema:"enum=files_with_matches,enum=content,enum=count" jsonschema_description:"files_with_matches (default) lists the files; content shows the matching lines; count gives the matching lines per file."`
	Context    int    `json:"context,omitempty" jsonschema:"minimum=0,maximum=100" jsonschema_description:"Lines of context before and after each match (content mode)."`
	HeadLimit  int    `json:"head_limit,omitempty" jsonschema:"minimum=0" jsonschema_description:"Keep only the first N lines or entries of the output."`
	IgnoreCase bool   `json:"ignore_case,omitempty" jsonschema_description:"Match without regard to case."`
}

// Grep returns the grep tool.
func Grep(o Options) tool.Tool {
	return tool.New(tool.Def[grepArgs]{
		ClaudeNames: []string{"Grep"},
		Claude: func(env tool.Env, a grepArgs) []tool.ClaudeView {
			in := map[string]any{"pattern": a.Pattern, "-i": a.IgnoreCase}
			if a.Path != "" {
				in["path"] = env.Abs(a.Path)
			}
			if a.Glob != "" {
				in["glob"] = a.Glob
			}
			if a.Type != "" {
				in["type"] = a.Type
			}
			if a.OutputMode != "" {
				in["output_mode"] = a.OutputMode
			}
			return []tool.ClaudeView{{Name: "Grep", Input: in}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) grepArgs {
			a := grepArgs{Pattern: c.String("pattern"), Path: c.String("path"), Glob: c.String("glob"), Type: c.String("type"),
				OutputMode: c.String("output_mode"), HeadLimit: c.Int("head_limit"), IgnoreCase: c.Bool("-i"), Context: c.Int("-C")}
			if a.Context == 0 {
				a.Context = max(c.Int("-A"), c.Int("-B"))
			}
			return a
		},
		Name:        "grep",
		Core:        true,
		Label:       "Search file contents",
		Description: grepDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindSearch,
		Icon:        "🔍",
		Principal:   func(a grepArgs) string { return a.Pattern },
		Title:       func(_ tool.Env, a grepArgs, _ []string) string { return "Search for " + a.Pattern },
		Files:       tool.FilesRead,
		Paths:       func(env tool.Env, a grepArgs) []string { return []string{env.Abs(a.Path)} },
		Check:       checkGrep,
		Run: func(ctx context.Context, env tool.Env, a grepArgs) tool.Result {
			return runGrep(ctx, env, a, o.maxOutput())
		},
	})
}

func checkGrep(a grepArgs) string {
	if a.Pattern == "" {
		return "grep needs a non-empty pattern."
	}
	if _, err := compileMatcher(a.Pattern, a.IgnoreCase); err != nil {
		return fmt.Sprintf("grep: the pattern %s is not a valid regular expression: %v.", quote(a.Pattern), err)
	}
	if a.Glob != "" {
		if _, err := globOverride(a.Glob); err != nil {
			return fmt.Sprintf("grep: the glob %s is not valid: %v.", quote(a.Glob), err)
		}
	}
	if a.Type != "" {
		if _, msg := typeFilter(a.Type); msg != "" {
			return msg
		}
	}
	return ""
}

// grepper is one grep call.
type grepper struct {
	m       *matcher
	mode    outputMode
	context int
	pool    chan *scratch // reused buffers (a sync.Pool loses them at each GC)
	coll    *collector
}

func (g *grepper) scratch() *scratch {
	select {
	case s := <-g.pool:
		return s
	default:
		return newScratch(g.m)
	}
}

func (g *grepper) release(s *scratch) {
	select {
	case g.pool <- s:
	default:
	}
}

// searchFile searches the file at abs, shown as path. A binary file (one holding a NUL
// byte) is skipped, as ripgrep skips the files it walks; nul is the offset of its first
// NUL byte, or -1.
func (g *grepper) searchFile(abs, path string) (nul int64) {
	s := g.scratch()
	defer g.release(s)
	r := fileResult{path: path}
	var err error
	switch g.mode {
	case modeContent:
		s.rend.reset(g, s.sc, &r, g.coll.budget)
		nul, err = s.scan(abs, &s.rend, true)
	default:
		s.cnt = counter{sc: s.sc, first: g.mode == modeFiles}
		nul, err = s.scan(abs, &s.cnt, true)
		r.count = s.cnt.n
	}
	switch {
	case err != nil:
		g.coll.unreadable()
	case nul < 0 && r.count > 0:
		g.coll.add(r)
	}
	return nul
}

// firstMatch returns the offset of the first match in the file at abs, NUL bytes or
// not, or -1.
func (g *grepper) firstMatch(abs string) (int64, error) {
	s := g.scratch()
	defer g.release(s)
	f := firstMatch{sc: s.sc, at: -1}
	_, err := s.scan(abs, &f, false)
	return f.at, err
}

// binaryNote is what grep says of a binary file named by path, with its first NUL byte
// at nul and its first match at at (or -1).
func binaryNote(shown string, size, nul int64, pattern string, at int64) string {
	s := fmt.Sprintf("%s is a binary file (%s, with a NUL byte at offset %s); grep skips binary files", shown, plural(int(size), "byte"), thousands(int(nul)))
	if at < 0 {
		return s + fmt.Sprintf(", and %s does not match in it anyway.", quote(pattern))
	}
	return s + fmt.Sprintf(", but %s matches in it (first at byte offset %s).", quote(pattern), thousands(int(at)))
}

func runGrep(ctx context.Context, env tool.Env, a grepArgs, maxOut int) tool.Result {
	if msg := checkGrep(a); msg != "" {
		return tool.Fail(msg)
	}
	m, _ := compileMatcher(a.Pattern, a.IgnoreCase)
	g := &grepper{m: m, context: a.Context, pool: make(chan *scratch, runtime.GOMAXPROCS(0))}
	switch a.OutputMode {
	case "content":
		g.mode = modeContent
	case "count":
		g.mode = modeCount
	}
	g.coll = newCollector(g.mode, 2*maxOut)
	root := env.Abs(a.Path)
	shown := a.Path
	if shown == "" {
		shown = "."
	}
	fi, msg := statRoot("grep", a.Path, root)
	if msg != "" {
		return tool.Fail(msg)
	}
	sk := &skips{env: env}
	if !fi.IsDir() {
		if err := env.CanRead(root); err != nil {
			return tool.Fail(fmt.Sprintf("grep was refused and read nothing: %s.", err))
		}
		nul := g.searchFile(root, displayPath(env.Cwd, root))
		if nul >= 0 && g.coll.unreadables == 0 {
			// named, not walked: say so rather than skip it silently, and whether it
			// matches, as rg's "binary file matches"
			at, err := g.firstMatch(root)
			if err == nil {
				return tool.Result{Text: binaryNote(shown, fi.Size(), nul, a.Pattern, at)}
			}
			g.coll.unreadable()
		}
		if g.coll.unreadables > 0 {
			return tool.Fail(fmt.Sprintf("grep cannot read the file %s.", shown))
		}
	} else {
		var o walk.Options
		if a.Glob != "" {
			o.Override, _ = globOverride(a.Glob)
		}
		if a.Type != "" {
			o.Types, _ = typeFilter(a.Type)
		}
		o.OnError = func(string, error) { g.coll.unreadable() }
		prefix := displayPrefix(env.Cwd, root)
		rootSlash := strings.TrimSuffix(root, string(filepath.Separator)) + string(filepath.Separator)
		err := walk.Walk(ctx, root, o, func(rel string, _ fs.DirEntry) {
			if sk.denied(rootSlash + rel) { // before the file is opened
				return
			}
			g.searchFile(rootSlash+rel, prefix+rel)
		})
		if ctx.Err() != nil {
			return tool.Fail("grep was cancelled before it finished.")
		}
		if err != nil {
			return tool.Fail(walkError("grep", shown, err))
		}
	}
	whole := &wholeList{ctx: ctx}
	return tool.Result{Text: tool.Within(maxOut, func(room int) string { return sk.withNote(g.coll.render(a, shown, room, whole)) })}
}
