package structural

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/astmatch"
	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
)

//go:embed ast_edit.md
var editDoc string

//go:embed resolve.md
var resolveDoc string

type editArgs struct {
	Pattern  string `json:"pattern" jsonschema_description:"The code to rewrite, as for ast_grep ($NAME one node, $$$NAME a run of nodes)."`
	Rewrite  string `json:"rewrite" jsonschema_description:"What each match becomes: code with the pattern's $NAME and $$$NAME substituted (an unbound name becomes nothing)."`
	Path     string `json:"path,omitempty" jsonschema_description:"File or folder (default: the working directory)."`
	Language string `json:"language,omitempty" jsonschema_description:"The language of the pattern; inferred from a file's extension; for a folder without it, every language the pattern parses in."`
}

// Set is the structural tools of one session on the lifecycle seam (a
// tool.Toolset): ast_grep, and, with a store of staged changes, ast_edit and resolve.
// Closing it, with the session, drops the staged changes held in memory (the session
// store keeps their record, for a resumed session).
type Set struct {
	o      Options
	staged *Staged
	wrap   func(tool.Tool) tool.Tool
}

// NewSet returns the tools over staged (nil: ast_grep alone); wrap, when set, wraps
// the tool that writes (resolve), as the diagnostics on write do.
func NewSet(o Options, staged *Staged, wrap func(tool.Tool) tool.Tool) *Set {
	if wrap == nil {
		wrap = func(t tool.Tool) tool.Tool { return t }
	}
	return &Set{o: o, staged: staged, wrap: wrap}
}

// Tools are the set's tools.
func (s *Set) Tools() []tool.Tool {
	if s.staged == nil {
		return []tool.Tool{Grep(s.o)}
	}
	return []tool.Tool{Grep(s.o), EditTool(s.o, s.staged), s.wrap(Resolve(s.o, s.staged))}
}

// Close drops the staged changes held in memory (the session store keeps them).
func (s *Set) Close(context.Context) error {
	if s.staged != nil {
		s.staged.Close()
	}
	return nil
}

// EditTool is the ast_edit tool: a rewrite computed and staged, nothing written.
func EditTool(o Options, staged *Staged) tool.Tool {
	return tool.New(tool.Def[editArgs]{
		Name:        "ast_edit",
		Family:      "structural search and rewrite",
		Label:       "Stage a structural rewrite",
		Description: editDoc,
		Level:       tool.LevelWrite,
		Kind:        tool.KindEdit,
		Icon:        "🌳",
		Principal:   func(a editArgs) string { return a.Pattern },
		Title: func(_ tool.Env, a editArgs, _ []string) string {
			return "Stage " + oneLine(a.Pattern, 40) + " → " + oneLine(a.Rewrite, 40)
		},
		Files: tool.FilesRead, // nothing is written until resolve accepts it
		Paths: func(env tool.Env, a editArgs) []string { return []string{env.Abs(a.Path)} },
		Run: func(ctx context.Context, env tool.Env, a editArgs) tool.Result {
			q, msg := newQuery(env, "ast_edit", a.Pattern, a.Path, a.Language)
			if msg != "" {
				return tool.Fail(msg)
			}
			q.digest = func(f *fileMatches, t *syntax.Tree, p *astmatch.Pattern, ms []astmatch.Match) {
				f.src = bytes.Clone(t.Src) // (the worker reuses its buffers)
				f.rewritten, f.replaced = rewriteFile(t, p, ms, a.Rewrite)
			}
			out, msg := q.run(ctx, "ast_edit")
			if msg != "" {
				return tool.Fail(msg)
			}
			e := &Edit{Pattern: a.Pattern, Rewrite: a.Rewrite}
			var changes []tool.FileChange
			var diffs []string
			var mu sync.Mutex
			for _, f := range out.files {
				text, n := f.rewritten, f.replaced
				if n == 0 || text == string(f.src) {
					continue
				}
				if err := env.CanWrite(f.abs); err != nil { // resolve would refuse it: not staged
					out.skip(err, &mu)
					continue
				}
				st, err := os.Stat(f.abs)
				if err != nil {
					return tool.Fail(fmt.Sprintf("ast_edit cannot read %s: %v.", f.shown, err))
				}
				e.Files = append(e.Files, EditFile{Path: f.abs, Shown: f.shown, Hash: hashOf(f.src), Mode: st.Mode().Perm(), New: text, Replacements: n})
				changes = append(changes, tool.FileChange{Path: f.abs, Old: string(f.src), New: text})
				diffs = append(diffs, fs.DiffText(f.shown, f.src, []byte(text)))
			}
			denied := out.deniedNote()
			if denied != "" {
				denied = "\n" + denied
			}
			if len(e.Files) == 0 {
				switch {
				case len(out.files) == 0:
					return tool.Result{Text: fmt.Sprintf("No match of the pattern in %s; nothing was staged.", q.shown) + denied}
				case denied != "":
					return tool.Result{Text: "Nothing was staged: the rewrite changes no file a rule lets it change." + denied}
				}
				return tool.Result{Text: "The pattern matches, but the rewrite changes nothing; nothing was staged."}
			}
			if err := staged.stage(e); err != nil {
				return tool.Fail(fmt.Sprintf("ast_edit staged nothing: %v.", err))
			}
			var b strings.Builder
			fmt.Fprintf(&b, "(proposed) %d replacement(s) in %d file(s); nothing is written yet. Call resolve with edit_id %q and action \"accept\" to write them all (or none, if a file changed meanwhile), or \"discard\".\n",
				e.Replacements(), len(e.Files), e.ID)
			for _, f := range e.Files {
				fmt.Fprintf(&b, "- %s: %d replacement(s)\n", f.Shown, f.Replacements)
			}
			if denied != "" {
				b.WriteString(strings.TrimPrefix(denied, "\n") + "\n")
			}
			diff := strings.Join(diffs, "\n")
			max := tool.MaxOutputOr(o.MaxOutput)
			preview := diff
			if len(preview) > max-b.Len()-100 {
				preview = cutLines(preview, max-b.Len()-100) + "\n… (the diff is cut; resolve writes all of it)"
			}
			b.WriteString("\n" + preview)
			return tool.Result{Text: strings.TrimRight(b.String(), "\n"), Display: tool.Display{Diff: diff, Changes: changes,
				Note: fmt.Sprintf("%s staged: %d replacement(s) in %d file(s), not written until resolve accepts it", e.ID, e.Replacements(), len(e.Files))}}
		},
	})
}

// rewriteFile applies the rewrite to every match of a file that is not inside an
// earlier one (the outermost wins), and says how many it replaced.
func rewriteFile(t *syntax.Tree, p *astmatch.Pattern, ms []astmatch.Match, template string) (string, int) {
	src := t.Src
	var b strings.Builder
	last, n := uint32(0), 0
	for _, m := range ms {
		start := t.Nodes[m.Node].Start
		if start < last {
			continue // nested in the previous match
		}
		b.Write(src[last:start])
		b.WriteString(p.Rewrite(t, m, template))
		last, n = m.End, n+1
	}
	b.Write(src[last:])
	return b.String(), n
}

// cutLines cuts s at a line end before n bytes.
func cutLines(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	s = s[:n]
	if i := strings.LastIndexByte(s, '\n'); i > 0 {
		s = s[:i]
	}
	return s
}
