package fs

import (
	"context"
	"fmt"
	"os"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A fileEdit is one section of a patch resolved against the disk: what the file holds now
// and what it will hold.
type fileEdit struct {
	op    patchOp
	named string // the file the section names, absolute (the path the editor knows)
	abs   string // the file on disk (for writes, the end of its symlinks)
	dest  string // where the new content goes: abs, or the Move to path
	old   []byte // the text the section changes (the editor's, when it reads); nil for Add
	disk  []byte // the bytes on disk, restored if the patch fails; nil when not on disk
	new   []byte // nil for Delete
	mode  os.FileMode
	link  string // Delete of a symlink: its target, to restore it
	// onDisk says the file exists on disk (not for Add, nor for an Update of a buffer
	// only the editor has).
	onDisk bool
	// replaces is, for an Add, the earlier Delete File or move of the patch that emptied
	// its path; nil else.
	replaces *fileEdit
}

// planPatch reads every file the patch touches and computes every new content, writing
// nothing. It returns the sentence refusing the patch when any section cannot apply.
//
// Sections apply in order, so a path a Delete File or a move empties may be created
// again by a later Add File or Move to of the same patch; any other second mention of a
// path is refused.
func planPatch(ctx context.Context, env tool.Env, ops []patchOp) ([]*fileEdit, string) {
	seen := map[string]int{}        // path → patch line of the last section that named it
	freed := map[string]*fileEdit{} // path → the earlier section that removed it
	claim := func(abs, shown string, line int, creates bool) string {
		if first, ok := seen[abs]; ok && (!creates || freed[abs] == nil) {
			return fmt.Sprintf("The patch touches %s twice (patch lines %d and %d); put all its changes in one section. Nothing was changed.", shown, first, line)
		}
		seen[abs] = line
		return ""
	}
	// Every file the patch names — both ends of a move — is read and written: all
	// are checked before any is read, so a denied file is never quoted or changed.
	for _, p := range patchPaths(ops) {
		if err := env.CanChange(env.Abs(p)); err != nil {
			return nil, fmt.Sprintf("apply_patch was refused and nothing was changed: %s.", err)
		}
	}
	var plan []*fileEdit
	for _, op := range ops {
		if ctx.Err() != nil {
			return nil, "apply_patch was cancelled; nothing was changed."
		}
		e := &fileEdit{op: op, named: env.Abs(op.path), mode: newFileMode}
		e.abs = e.named
		if msg := claim(e.abs, op.path, op.line, op.kind == 'A'); msg != "" {
			return nil, msg
		}
		var msg string
		switch op.kind {
		case 'A':
			e.replaces = freed[e.abs]
			delete(freed, e.abs)
			msg = e.planAdd()
		case 'D':
			msg = e.planDelete()
			freed[e.abs] = e
		case 'U':
			msg = e.planUpdate(ctx, env, freed)
			if msg == "" && e.dest != e.abs {
				if msg = claim(e.dest, op.moveTo, op.line, true); msg == "" {
					delete(freed, e.dest)
					freed[e.abs] = e
				}
			}
		}
		if msg != "" {
			return nil, msg
		}
		plan = append(plan, e)
	}
	return plan, ""
}

func (e *fileEdit) planAdd() string {
	e.dest = e.abs
	if e.replaces == nil {
		if _, err := os.Lstat(e.abs); err == nil {
			return fmt.Sprintf("%s already exists (patch line %d) and *** Add File does not overwrite; use *** Update File: %s to change it, or put *** Delete File: %s before this section to replace it. Nothing was changed.", e.op.path, e.op.line, e.op.path, e.op.path)
		}
	}
	if len(e.op.add) > 0 {
		e.new = []byte(strings.Join(e.op.add, "\n") + "\n")
	} else {
		e.new = []byte{}
	}
	return ""
}

func (e *fileEdit) planDelete() string {
	info, msg := statRegular(e.op.path, e.abs, "delete")
	if msg != "" {
		return patchMissing(msg, e.op)
	}
	if info.Size() > maxEditSize {
		return fmt.Sprintf("%s is too large to delete through apply_patch (%s); delete it with a shell command. Nothing was changed.", e.op.path, humanSize(info.Size()))
	}
	if li, err := os.Lstat(e.abs); err == nil && li.Mode()&os.ModeSymlink != 0 {
		e.link, _ = os.Readlink(e.abs)
	}
	data, err := os.ReadFile(e.abs)
	if err != nil {
		return statFailure(e.op.path, err)
	}
	e.old, e.disk, e.mode, e.onDisk = data, data, info.Mode().Perm(), true
	return ""
}

// planUpdate plans an Update section; freed holds the paths earlier sections removed, which
// a Move to may take.
func (e *fileEdit) planUpdate(ctx context.Context, env tool.Env, freed map[string]*fileEdit) string {
	e.abs = writeTarget(e.abs)
	e.dest = e.abs
	src, msg := loadSource(ctx, env, e.op.path, e.named, e.abs, "apply_patch")
	if msg != "" {
		return patchMissing(msg, e.op)
	}
	e.old, e.disk = src.data, src.disk
	if src.info != nil {
		e.mode, e.onDisk = src.info.Mode().Perm(), true
	}
	if len(e.op.chunks) == 0 {
		e.new = e.old // a pure move keeps the bytes
	} else {
		text, form := splitForm(e.old)
		updated, msg := applyChunks(text, form, e.op)
		if msg != "" {
			return msg
		}
		e.new = form.join(updated)
	}
	if e.op.moveTo != "" {
		e.dest = env.Abs(e.op.moveTo)
		if e.dest != e.abs && freed[e.dest] == nil {
			if _, err := os.Lstat(e.dest); err == nil {
				return fmt.Sprintf("%s already exists, so %s cannot be moved there (patch line %d): *** Move to does not overwrite; to replace it, put *** Delete File: %s before this section. Nothing was changed.", e.op.moveTo, e.op.path, e.op.line, e.op.moveTo)
			}
		}
	}
	return ""
}

// patchMissing rewrites the missing-file sentence for a patch, where Add File creates.
func patchMissing(msg string, op patchOp) string {
	if msg == missingFile(op.path) {
		return fmt.Sprintf("%s does not exist (patch line %d); to create it use *** Add File. Nothing was changed.", op.path, op.line)
	}
	return msg
}

// applyChunks applies the hunks of an Update to text (BOM removed), each located after
// the previous one. It returns the new text or a sentence saying which hunk did not match.
// As in Codex, the new text ends with a line end unless it is empty, also when the old
// text did not.
func applyChunks(text string, form textForm, op patchOp) (string, string) {
	body := text
	if form.crlf {
		body = strings.ReplaceAll(text, "\r\n", "\n")
	}
	var lines []string
	if body != "" {
		lines = strings.Split(strings.TrimSuffix(body, "\n"), "\n")
	}
	type replacement struct {
		start, n int
		new      []string
	}
	var repls []replacement
	at := 0
	for _, ch := range op.chunks {
		if ch.anchor != "" {
			k := seekSequence(lines, []string{ch.anchor}, at, false)
			if k < 0 {
				return "", fmt.Sprintf("The hunk at patch line %d does not apply to %s: its @@ line %q was not found%s. Nothing was changed.", ch.line, op.path, ch.anchor, after(at))
			}
			at = k + 1
		}
		if len(ch.old) == 0 {
			// Pure addition: after the anchor line, or at the end of the file.
			pos := len(lines)
			if ch.anchor != "" && !ch.eof {
				pos = at
			}
			repls = append(repls, replacement{pos, 0, ch.new})
			continue
		}
		old := ch.old
		k := seekSequence(lines, old, at, ch.eof)
		if k < 0 && old[len(old)-1] == "" {
			// A trailing empty context line often stands for the end of the file.
			old = old[:len(old)-1]
			k = seekSequence(lines, old, at, ch.eof)
		}
		if k < 0 {
			return "", fmt.Sprintf("The hunk at patch line %d does not apply to %s: its context and '-' lines were not found%s. Nothing was changed.", ch.line, op.path, after(at)) + closestRegion(text, strings.Join(ch.old, "\n"))
		}
		repls = append(repls, replacement{k, len(old), ch.newLines(lines[k : k+len(old)])})
		at = k + len(old)
	}
	sort.SliceStable(repls, func(i, j int) bool { return repls[i].start < repls[j].start })
	for i := len(repls) - 1; i >= 0; i-- {
		r := repls[i]
		tail := append([]string(nil), lines[r.start+r.n:]...)
		lines = append(append(lines[:r.start], r.new...), tail...)
	}
	out := strings.Join(lines, "\n")
	if len(lines) > 0 {
		out += "\n"
	}
	if form.crlf {
		out = toCRLF(out)
	}
	return out, ""
}

func after(line int) string {
	if line == 0 {
		return ""
	}
	return fmt.Sprintf(" after line %d", line)
}

// newLines returns the lines that replace matched, the file's lines the hunk's context
// and '-' lines matched (possibly all but a last empty one). Context lines keep the
// file's own text, so a loose match (whitespace, punctuation) never rewrites them.
func (c *chunk) newLines(matched []string) []string {
	var out []string
	i := 0
	for _, l := range c.body {
		switch l.op {
		case ' ':
			if i < len(matched) {
				out = append(out, matched[i])
			}
			i++
		case '-':
			i++
		case '+':
			out = append(out, l.text)
		}
	}
	return out
}
