package fs

import (
	"bytes"
	"context"
	_ "embed"
	"errors"
	"fmt"
	iofs "io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed writefile.md
var writeFileDoc string

type writeArgs struct {
	Path    string `json:"path" jsonschema:"description=File path relative to the working directory or absolute; missing parent folders are created."`
	Content string `json:"content" jsonschema:"description=The whole new content of the file."`
}

// WriteFile returns the write_file tool.
func WriteFile(o Options) tool.Tool {
	return tool.New(tool.Def[writeArgs]{
		Name:        "write_file",
		Description: writeFileDoc,
		Level:       tool.LevelWrite,
		Kind:        tool.KindEdit,
		Principal:   func(a writeArgs) string { return a.Path },
		Paths:       func(env tool.Env, a writeArgs) []string { return []string{env.Abs(a.Path)} },
		Check: func(a writeArgs) string {
			if strings.TrimSpace(a.Path) == "" {
				return `write_file needs a file in "path", which is empty.`
			}
			return ""
		},
		Run: func(ctx context.Context, env tool.Env, a writeArgs) tool.Result {
			return writeFile(ctx, env, a, o.maxOutput())
		},
	})
}

func writeFile(ctx context.Context, env tool.Env, a writeArgs, maxOut int) tool.Result {
	abs := env.Abs(a.Path)
	target := writeTarget(abs)
	content := []byte(a.Content)
	mode := newFileMode
	var old []byte
	exists, oldTooBig := false, false

	info, err := os.Stat(target)
	switch {
	case err == nil:
		if info.IsDir() {
			return tool.Fail(fmt.Sprintf("%s is a directory; write_file writes a file, so give a path inside it.", a.Path))
		}
		if !info.Mode().IsRegular() {
			return tool.Fail(fmt.Sprintf("%s is %s, not a regular file; write_file only replaces regular files.", a.Path, modeKind(info.Mode())))
		}
		exists, mode = true, info.Mode().Perm()
		if info.Size() > maxEditSize {
			oldTooBig = true
		} else if old, err = os.ReadFile(target); err != nil {
			return tool.Fail(statFailure(a.Path, err))
		}
	case errors.Is(err, iofs.ErrNotExist):
		// Created below, with its parents.
	case errors.Is(err, syscall.ENOTDIR):
		return tool.Fail(fmt.Sprintf("%s cannot be created: part of its folder path is a file, not a folder.", a.Path))
	default:
		return tool.Fail(statFailure(a.Path, err))
	}

	if exists && !oldTooBig && bytes.Equal(old, content) {
		return tool.Result{Text: fmt.Sprintf("%s already has exactly this content; nothing was written.", a.Path)}
	}
	if ctx.Err() != nil {
		return tool.Fail("write_file was cancelled; nothing was written.")
	}
	if !exists {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return tool.Fail(fmt.Sprintf("The folder of %s could not be created (%s); nothing was written.", a.Path, bareError(err)))
		}
	}
	if err := writeAtomic(target, content, mode); err != nil {
		return tool.Fail(writeFailure(a.Path, err))
	}

	var headline string
	var c *change
	switch {
	case !exists:
		c = newChange(a.Path, nil, content, true, false)
		headline = fmt.Sprintf("Created %s (%s, %s).", a.Path, plural(countLines(content), "line"), humanSize(int64(len(content))))
	case oldTooBig:
		headline = fmt.Sprintf("Replaced %s (previously %s, too large to diff) with %s.", a.Path, humanSize(info.Size()), plural(countLines(content), "line"))
		return tool.Result{Text: headline}
	default:
		c = newChange(a.Path, old, content, false, false)
		headline = fmt.Sprintf("Wrote %s: %s.", a.Path, c.summary())
	}
	d := c.diff(false)
	return tool.Result{
		Text:    tool.Bound(joinReport(headline, d), maxOut),
		Display: tool.Display{Diff: d},
	}
}
