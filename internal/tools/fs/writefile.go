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
	Path    string `json:"path" jsonschema_description:"File path relative to the working directory or absolute; missing parent folders are created."`
	Content string `json:"content" jsonschema_description:"The whole new content of the file."`
}

// WriteFile returns the write_file tool.
func WriteFile(o Options) tool.Tool {
	return tool.New(tool.Def[writeArgs]{
		ClaudeNames: []string{"Write"},
		Claude: func(env tool.Env, a writeArgs) []tool.ClaudeView {
			return []tool.ClaudeView{{Name: "Write", Input: map[string]any{"file_path": env.Abs(a.Path), "content": a.Content}}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) writeArgs {
			return writeArgs{Path: c.String("file_path"), Content: c.String("content")}
		},
		Name:        "write_file",
		Core:        true,
		Label:       "Write a file",
		Description: writeFileDoc,
		Level:       tool.LevelWrite,
		Kind:        tool.KindEdit,
		Icon:        "✏️",
		Counter:     tool.CountFileOp,
		Principal:   func(a writeArgs) string { return a.Path },
		Files:       tool.FilesWrite,
		Paths:       func(env tool.Env, a writeArgs) []string { return []string{env.Abs(a.Path)} },
		Title: func(env tool.Env, a writeArgs, paths []string) string {
			return tool.PathsTitle("Write", env, paths, a.Path)
		},
		Preview: previewWrite,
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
	if err := env.CanWrite(abs); err != nil {
		return refused("write_file", err)
	}
	target := writeTarget(abs)
	content := []byte(a.Content)
	prev, msg := loadPrevious(ctx, env, a.Path, abs, target)
	if msg != "" {
		return tool.Fail(msg)
	}
	if prev.exists && !prev.tooBig && prev.hidden == "" && bytes.Equal(prev.old, content) {
		return tool.Result{Text: fmt.Sprintf("%s already has exactly this content; nothing was written.", a.Path)}
	}
	if ctx.Err() != nil {
		return tool.Fail("write_file was cancelled; nothing was written.")
	}
	if !prev.onDisk {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return tool.Fail(fmt.Sprintf("The folder of %s could not be created (%s); nothing was written.", a.Path, bareError(err)))
		}
	}
	via := writesThroughEditor(env, content)
	if err := writeText(ctx, env, abs, target, content, prev.mode, via); err != nil {
		return tool.Fail(saveFailure(a.Path, err, via))
	}

	var headline string
	var c *change
	switch {
	case !prev.exists:
		c = newChange(a.Path, nil, content, true, false)
		headline = fmt.Sprintf("Created %s (%s, %s).", a.Path, plural(countLines(content), "line"), humanSize(int64(len(content))))
	case prev.tooBig:
		headline = fmt.Sprintf("Replaced %s (previously %s, too large to diff) with %s.", a.Path, humanSize(prev.size), plural(countLines(content), "line"))
		return tool.Result{Text: headline}
	case prev.hidden != "":
		headline = fmt.Sprintf("Replaced %s with %s; its old content is not shown (%s).", a.Path, plural(countLines(content), "line"), prev.hidden)
		return tool.Result{Text: headline}
	default:
		c = newChange(a.Path, prev.old, content, false, false)
		headline = fmt.Sprintf("Wrote %s: %s.", a.Path, c.summary())
	}
	var cs fileChanges
	cs.add(abs, prev.old, content, !prev.exists, false)
	d := c.diff(false)
	return tool.Result{
		Text:    tool.Bound(joinReport(headline, d), maxOut),
		Display: tool.Display{Diff: d, Changes: cs},
	}
}

// previewWrite is the diff a write_file call would make: its content against the file
// as the editor or the disk has it. Nothing is written; a file that cannot be written
// or is too large to diff shows nothing.
func previewWrite(ctx context.Context, env tool.Env, a writeArgs) tool.Display {
	abs := env.Abs(a.Path)
	prev, msg := loadPrevious(ctx, env, a.Path, abs, writeTarget(abs))
	content := []byte(a.Content)
	if msg != "" || prev.tooBig || prev.hidden != "" || len(content) > maxEditSize || (prev.exists && bytes.Equal(prev.old, content)) {
		return tool.Display{}
	}
	var cs fileChanges
	cs.add(abs, prev.old, content, !prev.exists, false)
	return tool.Display{Diff: newChange(a.Path, prev.old, content, !prev.exists, false).diff(false), Changes: cs}
}

// previous is what a file held before write_file replaced it.
type previous struct {
	onDisk bool // the file exists on disk
	exists bool // the file exists on disk or as a buffer of the editor
	tooBig bool // the file is larger than maxEditSize, so old was not read
	// hidden says why old was not read: a rule denies reading the file (its content,
	// or whether it equals the new one, must not reach the model).
	hidden string
	size   int64
	mode   os.FileMode // of the file on disk, or newFileMode
	old    []byte
}

// loadPrevious reads the content write_file replaces at target (abs as the model named
// it, the end of its links): from the disk, or through env's editor when it reads a text
// file of this size or the disk does not have it. It returns a sentence when the path
// cannot be written.
func loadPrevious(ctx context.Context, env tool.Env, shown, abs, target string) (previous, string) {
	p := previous{mode: newFileMode}
	info, err := os.Stat(target)
	switch {
	case err == nil:
	case errors.Is(err, iofs.ErrNotExist):
		if env.EditorReads() && env.CanRead(abs) == nil {
			// An unsaved new buffer of the editor; an empty one is no file at all.
			if text, err := env.Editor.ReadText(ctx, abs); err == nil && text != "" {
				p.exists, p.old = true, []byte(text)
			}
		}
		return p, ""
	case errors.Is(err, syscall.ENOTDIR):
		return p, fmt.Sprintf("%s cannot be created: part of its folder path is a file, not a folder.", shown)
	default:
		return p, statFailure(shown, err)
	}
	if info.IsDir() {
		return p, fmt.Sprintf("%s is a directory; write_file writes a file, so give a path inside it.", shown)
	}
	if !info.Mode().IsRegular() {
		return p, fmt.Sprintf("%s is %s, not a regular file; write_file only replaces regular files.", shown, modeKind(info.Mode()))
	}
	p.onDisk, p.exists, p.mode, p.size = true, true, info.Mode().Perm(), info.Size()
	if err := env.CanRead(abs); err != nil {
		p.hidden = err.Error()
		return p, ""
	}
	if info.Size() > maxEditSize {
		p.tooBig = true
		return p, ""
	}
	if p.old, err = os.ReadFile(target); err != nil {
		return p, statFailure(shown, err)
	}
	head := p.old[:min(len(p.old), sniffSize)]
	if readsThroughEditor(env, info.Size()) && !looksBinary(head, len(p.old) > len(head)) {
		text, err := env.Editor.ReadText(ctx, abs)
		if err != nil {
			return p, editorFailure(shown, err, "; nothing was written")
		}
		p.old = []byte(text)
	}
	return p, ""
}
