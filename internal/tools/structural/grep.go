package structural

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/gantry-dev/gantry/internal/astmatch"
	"github.com/gantry-dev/gantry/internal/syntax"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed ast_grep.md
var grepDoc string

// Options configure the structural tools.
type Options struct {
	// MaxOutput bounds the text the model reads, in characters; 0 means the default.
	MaxOutput int
}

const defaultMaxResults = 50

type grepArgs struct {
	Pattern    string `json:"pattern" jsonschema_description:"Code to find, written as code in the language, with metavariables: $NAME matches one node, $$$NAME a run of sibling nodes (arguments, statements), $_ and $$$ match without binding. A metavariable used twice must match the same text."`
	Path       string `json:"path,omitempty" jsonschema_description:"File or folder to search (default: the working directory)."`
	Language   string `json:"language,omitempty" jsonschema_description:"The language of the pattern (go, python, javascript, typescript, tsx, rust, c, cpp, java, bash, ruby, json, html, css, dart); inferred from a file's extension; for a folder without it, every language the pattern parses in."`
	MaxResults int    `json:"max_results,omitempty" jsonschema:"minimum=0,maximum=1000" jsonschema_description:"The most matches shown (default 50)."`
}

// Grep is the ast_grep tool.
func Grep(o Options) tool.Tool {
	return tool.New(tool.Def[grepArgs]{
		Name:        "ast_grep",
		Family:      "structural search and rewrite",
		Label:       "Structural code search",
		Description: grepDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindSearch,
		Icon:        "🌳",
		Principal:   func(a grepArgs) string { return a.Pattern },
		Title:       func(_ tool.Env, a grepArgs, _ []string) string { return "Find " + oneLine(a.Pattern, 60) },
		Files:       tool.FilesRead,
		Paths:       func(env tool.Env, a grepArgs) []string { return []string{env.Abs(a.Path)} },
		Run: func(ctx context.Context, env tool.Env, a grepArgs) tool.Result {
			q, msg := newQuery(env, "ast_grep", a.Pattern, a.Path, a.Language)
			if msg != "" {
				return tool.Fail(msg)
			}
			limit := a.MaxResults
			if limit <= 0 {
				limit = defaultMaxResults
			}
			q.digest = func(f *fileMatches, t *syntax.Tree, _ *astmatch.Pattern, ms []astmatch.Match) {
				for i, m := range ms {
					if i == limit {
						break // (no more of one file can be shown)
					}
					f.entries = append(f.entries, renderMatch(f.shown, t, m))
				}
			}
			out, msg := q.run(ctx, "ast_grep")
			if msg != "" {
				return tool.Fail(msg)
			}
			var summary string
			text := tool.Within(tool.MaxOutputOr(o.MaxOutput), func(room int) string {
				text, s := renderMatches(q, out, limit, room)
				summary = s
				return text
			})
			return tool.Result{Text: text, Display: tool.Display{Note: summary}}
		},
	})
}

// renderMatches is `path:line:col: text` per match with its captures below it, at most
// limit matches and maxOut characters, then a line saying what was searched and
// skipped.
func renderMatches(q *query, out *outcome, limit, maxOut int) (text, summary string) {
	total := 0
	for _, f := range out.files {
		total += f.count
	}
	var b strings.Builder
	shown, cut := 0, false
	for _, f := range out.files {
		for i := range f.count {
			if shown >= limit || i >= len(f.entries) {
				cut = true
				break
			}
			entry := f.entries[i]
			if b.Len()+len(entry) > maxOut-200 && shown > 0 {
				cut = true
				break
			}
			b.WriteString(entry)
			shown++
		}
		if cut {
			break
		}
	}
	var notes []string
	if total == 0 {
		b.WriteString(fmt.Sprintf("No match of the pattern in %s.", q.shown))
	} else if cut {
		notes = append(notes, fmt.Sprintf("%d matches in %d file(s); the first %d are shown (raise max_results or narrow path)", total, len(out.files), shown))
	}
	notes = append(notes, searchedNote(out)...)
	if len(notes) > 0 {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString("(" + strings.Join(notes, "; ") + ".)")
	}
	if d := out.deniedNote(); d != "" {
		if b.Len() > 0 && !strings.HasSuffix(b.String(), "\n") {
			b.WriteByte('\n')
		}
		b.WriteString(d)
	}
	if total > 0 {
		summary = fmt.Sprintf("%d match(es) in %d file(s)", total, len(out.files))
	}
	return strings.TrimRight(b.String(), "\n"), summary
}

// searchedNote says what the search read and what it skipped.
func searchedNote(out *outcome) []string {
	var notes []string
	langs := slices.Sorted(maps.Keys(out.langs))
	if out.searched > 1 || len(langs) > 1 {
		notes = append(notes, fmt.Sprintf("searched %d file(s) of %s", out.searched, strings.Join(langs, ", ")))
	}
	if out.withErrors > 0 {
		notes = append(notes, fmt.Sprintf("%d file(s) have syntax errors: matches outside them are shown", out.withErrors))
	}
	if out.binary > 0 {
		notes = append(notes, fmt.Sprintf("%d binary file(s) skipped", out.binary))
	}
	if out.large > 0 {
		notes = append(notes, fmt.Sprintf("%d file(s) over %d MiB skipped", out.large, maxFileBytes>>20))
	}
	if out.unreadable > 0 {
		notes = append(notes, fmt.Sprintf("%d file(s) or folder(s) could not be read", out.unreadable))
	}
	if out.unparsed > 0 {
		notes = append(notes, fmt.Sprintf("%d file(s) could not be parsed (%v)", out.unparsed, out.firstUnparsed))
	}
	if len(out.refused) > 0 && out.searched > 0 {
		notes = append(notes, "the pattern does not parse in "+strings.Join(slices.Sorted(maps.Keys(out.refused)), ", ")+", so those files were not searched")
	}
	return notes
}

// renderMatch is one match: its first line, up to 4 more lines of it, its captures.
func renderMatch(shown string, t *syntax.Tree, m astmatch.Match) string {
	n := t.Nodes[m.Node]
	line, col := position(t.Src, n.Start)
	lines := strings.Split(string(lineSpan(t.Src, n.Start, n.End)), "\n")
	var b strings.Builder
	fmt.Fprintf(&b, "%s:%d:%d: %s\n", shown, line, col, strings.TrimSpace(lines[0]))
	for i, l := range lines[1:] {
		if i == 4 {
			fmt.Fprintf(&b, "    … (%d more lines)\n", len(lines)-5)
			break
		}
		b.WriteString("    " + strings.TrimRight(l, " \t\r") + "\n")
	}
	if caps := captures(t, m); caps != "" {
		b.WriteString("    " + caps + "\n")
	}
	return b.String()
}

// lineSpan is the whole lines from the one holding start to the one holding end.
func lineSpan(src []byte, start, end uint32) []byte {
	s := bytes.LastIndexByte(src[:start], '\n') + 1
	e := len(src)
	if i := bytes.IndexByte(src[end:], '\n'); i >= 0 {
		e = int(end) + i
	}
	if end > 0 && end <= uint32(len(src)) && src[end-1] == '\n' {
		e = int(end) - 1
	}
	return src[s:max(e, s)]
}

// captures shows a match's metavariables: `$A = text; $$$B = text`.
func captures(t *syntax.Tree, m astmatch.Match) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m.Single)) {
		parts = append(parts, "$"+k+" = "+oneLine(string(t.Text(m.Single[k])), 80))
	}
	for _, k := range slices.Sorted(maps.Keys(m.Multi)) {
		run := m.Multi[k]
		text := ""
		if len(run) > 0 {
			text = string(t.Src[t.Nodes[run[0]].Start:t.Nodes[run[len(run)-1]].End])
		}
		parts = append(parts, "$$$"+k+" = "+oneLine(text, 80))
	}
	return strings.Join(parts, "; ")
}

// oneLine is s on one line, cut at n characters.
func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
