package search

import (
	"context"
	_ "embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/walk"
)

//go:embed glob.md
var globDoc string

// DefaultGlobLimit is how many files glob lists when limit is not given.
const DefaultGlobLimit = 100

type globArgs struct {
	Pattern        string `json:"pattern" jsonschema_description:"Glob matched against paths relative to path (e.g. **/*.go or src/**/*.{ts,tsx})."`
	Path           string `json:"path,omitempty" jsonschema_description:"Folder to search (default: the working directory)."`
	ExcludePattern string `json:"exclude_pattern,omitempty" jsonschema_description:"Glob of files and folders to leave out (e.g. **/node_modules/**)."`
	Limit          int    `json:"limit,omitempty" jsonschema:"minimum=1" jsonschema_description:"Most files to list (default 100)."`
}

// Glob returns the glob tool.
func Glob(o Options) tool.Tool {
	return tool.New(tool.Def[globArgs]{
		ClaudeNames: []string{"Glob"},
		Claude: func(env tool.Env, a globArgs) []tool.ClaudeView {
			in := map[string]any{"pattern": a.Pattern}
			if a.Path != "" {
				in["path"] = env.Abs(a.Path)
			}
			return []tool.ClaudeView{{Name: "Glob", Input: in}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) globArgs {
			return globArgs{Pattern: c.String("pattern"), Path: c.String("path")}
		},
		Name:        "glob",
		Aliases:     []string{"LS", "list_dir", "find_files"},
		Core:        true,
		Label:       "Find files by name",
		Description: globDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindSearch,
		Icon:        "🔍",
		Principal:   func(a globArgs) string { return a.Pattern },
		Title:       func(_ tool.Env, a globArgs, _ []string) string { return "Find " + a.Pattern },
		Files:       tool.FilesRead,
		Paths:       func(env tool.Env, a globArgs) []string { return []string{env.Abs(a.Path)} },
		Check:       checkGlob,
		Formers:     []tool.Former{{Name: "excludePattern", New: "exclude_pattern"}},
		Run: func(ctx context.Context, env tool.Env, a globArgs) tool.Result {
			return runGlob(ctx, env, a, o.maxOutput())
		},
	})
}

// cleanGlob drops a leading ./ (the paths matched have none).
func cleanGlob(p string) string {
	for strings.HasPrefix(p, "./") {
		p = strings.TrimLeft(p[2:], "/")
	}
	return p
}

func checkGlob(a globArgs) string {
	if _, err := walk.CompileGlob(cleanGlob(a.Pattern)); err != nil {
		return fmt.Sprintf("glob: the pattern %s is not a valid glob: %v.", quote(a.Pattern), err)
	}
	if a.ExcludePattern != "" {
		if _, err := walk.CompileGlob(cleanGlob(a.ExcludePattern)); err != nil {
			return fmt.Sprintf("glob: the exclude_pattern %s is not a valid glob: %v.", quote(a.ExcludePattern), err)
		}
	}
	return ""
}

// namesHidden reports whether a pattern names a hidden file or folder explicitly.
func namesHidden(p string) bool {
	return strings.HasPrefix(p, ".") || strings.Contains(p, "/.") || strings.Contains(p, "{.") || strings.Contains(p, ",.")
}

type globHit struct {
	path  string
	mtime time.Time
}

func runGlob(ctx context.Context, env tool.Env, a globArgs, maxOut int) tool.Result {
	if msg := checkGlob(a); msg != "" {
		return tool.Fail(msg)
	}
	root := env.Abs(a.Path)
	shown := a.Path
	if shown == "" {
		shown = "."
	}
	// An absolute pattern under the folder searched is made relative to it.
	pattern := cleanGlob(a.Pattern)
	if filepath.IsAbs(pattern) {
		if rel, ok := strings.CutPrefix(pattern, strings.TrimSuffix(filepath.ToSlash(root), "/")+"/"); ok {
			pattern = rel
		}
	}
	g, err := walk.CompileGlob(pattern)
	if err != nil {
		return tool.Fail(fmt.Sprintf("glob: the pattern %s is not a valid glob: %v.", quote(a.Pattern), err))
	}
	var ex *walk.Glob
	if a.ExcludePattern != "" {
		ex, _ = walk.CompileGlob(cleanGlob(a.ExcludePattern))
	}
	fi, msg := statRoot("glob", a.Path, root)
	if msg != "" {
		return tool.Fail(msg)
	}
	if !fi.IsDir() {
		return tool.Fail(fmt.Sprintf("glob: the path %s is a file, not a folder; give its folder as path, or read the file.", shown))
	}
	o := walk.Options{Hidden: namesHidden(pattern)}
	if ex != nil {
		o.Override = func(rel string, isDir bool) walk.Verdict {
			if ex.Match(rel) {
				return walk.Exclude
			}
			return walk.None
		}
	}
	var mu sync.Mutex
	var hits []globHit
	rootSlash := strings.TrimSuffix(root, string(filepath.Separator)) + string(filepath.Separator)
	sk := &skips{env: env}
	err = walk.Walk(ctx, root, o, func(rel string, d fs.DirEntry) {
		if !g.Match(rel) || sk.denied(rootSlash+rel) {
			return
		}
		h := globHit{path: rel}
		if info, err := d.Info(); err == nil {
			h.mtime = info.ModTime()
		}
		mu.Lock()
		hits = append(hits, h)
		mu.Unlock()
	})
	if ctx.Err() != nil {
		return tool.Fail("glob was cancelled before it finished.")
	}
	if err != nil {
		return tool.Fail(walkError("glob", shown, err))
	}
	if len(hits) == 0 {
		return tool.Result{Text: sk.withNote(fmt.Sprintf("No files match %s in %s.", quote(a.Pattern), shown))}
	}
	sort.Slice(hits, func(i, j int) bool {
		if !hits[i].mtime.Equal(hits[j].mtime) {
			return hits[i].mtime.After(hits[j].mtime)
		}
		return hits[i].path < hits[j].path
	})
	limit := a.Limit
	if limit <= 0 {
		limit = DefaultGlobLimit
	}
	prefix := displayPrefix(env.Cwd, root)
	whole := &wholeList{ctx: ctx}
	all := func() string {
		var b strings.Builder
		for _, h := range hits {
			b.WriteString(prefix + h.path + "\n")
		}
		return b.String()
	}
	return tool.Result{Text: tool.Within(maxOut, func(room int) string {
		var b strings.Builder
		n := 0
		for _, h := range hits {
			line := prefix + h.path + "\n"
			if n >= limit || b.Len()+len(line) > room {
				break
			}
			b.WriteString(line)
			n++
		}
		out := strings.TrimSuffix(b.String(), "\n")
		if n < len(hits) {
			out += fmt.Sprintf("\n[showing %s of %s, newest first; %snarrow the pattern]", thousands(n), plural(len(hits), "file"), whole.note(all))
		}
		return sk.withNote(out)
	})}
}
