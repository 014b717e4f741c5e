package fs

import (
	"bufio"
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed readfile.md
var readFileDoc string

type readArgs struct {
	Path     string `json:"path" jsonschema_description:"File path relative to the working directory or absolute."`
	Start    int    `json:"start,omitempty" jsonschema:"minimum=0,default=0" jsonschema_description:"First line to show (1-based); 0 means from the start."`
	End      int    `json:"end,omitempty" jsonschema:"minimum=0,default=0" jsonschema_description:"Last line to show (1-based and inclusive); 0 means to the end."`
	Numbered bool   `json:"numbered,omitempty" jsonschema:"default=false" jsonschema_description:"Prefix each line with its line number."`
}

// ReadFile returns the read_file tool.
func ReadFile(o Options) tool.Tool {
	return tool.New(tool.Def[readArgs]{
		ClaudeNames: []string{"Read"},
		Claude: func(env tool.Env, a readArgs) []tool.ClaudeView {
			in := map[string]any{"file_path": env.Abs(a.Path)}
			if a.Start > 0 {
				in["offset"] = a.Start
				if a.End >= a.Start {
					in["limit"] = a.End - a.Start + 1
				}
			}
			return []tool.ClaudeView{{Name: "Read", Input: in}}
		},
		FromClaude: func(_ tool.Env, c *tool.ClaudeArgs) readArgs {
			a := readArgs{Path: c.String("file_path"), Start: c.Int("offset")}
			if limit := c.Int("limit"); limit > 0 {
				a.Start = max(a.Start, 1)
				a.End = a.Start + limit - 1
			}
			return a
		},
		Name:        "read_file",
		Aliases:     []string{"view_image", "NotebookRead"},
		Core:        true,
		Label:       "Read a file",
		Description: readFileDoc,
		Level:       tool.LevelRead,
		Kind:        tool.KindRead,
		Icon:        "📄",
		Counter:     tool.CountFileOp,
		Principal:   func(a readArgs) string { return a.Path },
		Files:       tool.FilesRead,
		Paths:       func(env tool.Env, a readArgs) []string { return []string{env.Abs(a.Path)} },
		Title: func(env tool.Env, a readArgs, paths []string) string {
			return tool.PathsTitle("Read", env, paths, a.Path)
		},
		Check: checkRead,
		Run: func(ctx context.Context, env tool.Env, a readArgs) tool.Result {
			return readFile(ctx, env, a, o.maxOutput())
		},
	})
}

func checkRead(a readArgs) string {
	if strings.TrimSpace(a.Path) == "" {
		return `read_file needs a file in "path", which is empty.`
	}
	if a.End != 0 && a.End < a.Start {
		return fmt.Sprintf("read_file: end (%d) is before start (%d); give an end at or after start, or 0 to read to the end of the file.", a.End, a.Start)
	}
	return ""
}

// maxLineBytes is how much of one line read_file keeps; the rest is counted and skipped.
const maxLineBytes = 4000

func readFile(ctx context.Context, env tool.Env, a readArgs, maxOut int) tool.Result {
	if err := ctx.Err(); err != nil {
		return tool.Fail("read_file was cancelled.")
	}
	abs := env.Abs(a.Path)
	if err := env.CanRead(abs); err != nil {
		return refused("read_file", err)
	}
	info, msg := statRegular(a.Path, abs, "read")
	if msg != "" {
		if msg == missingFile(a.Path) && env.EditorReads() {
			// The editor may hold an unsaved new buffer.
			if text, err := env.Editor.ReadText(ctx, abs); err == nil {
				return readText(ctx, text, a, maxOut)
			}
		}
		return tool.Fail(msg)
	}
	f, err := os.Open(abs)
	if err != nil {
		return tool.Fail(statFailure(a.Path, err))
	}
	defer f.Close()
	r := lineReader(f)
	head, perr := r.Peek(sniffSize)
	if perr != nil && !errors.Is(perr, io.EOF) && !errors.Is(perr, bufio.ErrBufferFull) {
		return tool.Fail(statFailure(a.Path, perr))
	}
	if kind := imageKind(head); kind != "" {
		return readImage(ctx, a.Path, abs, info.Size(), kind)
	}
	if len(head) > 0 && looksBinary(head, perr == nil) {
		return tool.Fail(binarySentence(a.Path, head, info.Size(), "read_file shows only text files and images"))
	}
	if readsThroughEditor(env, info.Size()) {
		text, err := env.Editor.ReadText(ctx, abs)
		if err != nil {
			return tool.Fail(editorFailure(a.Path, err, ""))
		}
		return readText(ctx, text, a, maxOut)
	}
	if len(head) == 0 {
		return tool.Result{Text: emptySentence(a.Path)}
	}
	return streamLines(ctx, r, a, maxOut)
}

// readText returns the wanted lines of text, a file's content as the editor has it,
// exactly as streamLines returns them from the disk.
func readText(ctx context.Context, text string, a readArgs, maxOut int) tool.Result {
	if text == "" {
		return tool.Result{Text: emptySentence(a.Path)}
	}
	return streamLines(ctx, lineReader(strings.NewReader(text)), a, maxOut)
}

// lineReader buffers r for streamLines.
func lineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }

func emptySentence(shown string) string { return fmt.Sprintf("%s is empty (0 bytes).", shown) }

// lineRange writes the wanted lines of one file, keeping within a character budget.
type lineRange struct {
	a        readArgs
	budget   int // characters the lines may take
	lineCap  int // bytes kept of one line
	out      strings.Builder
	used     int // characters written
	lastNo   int // last line written
	stopped  bool
	numWidth int
}

// streamLines reads r line by line without keeping more than one capped line, and
// returns the lines start..end.
func streamLines(ctx context.Context, r *bufio.Reader, a readArgs, maxOut int) tool.Result {
	const noticeRoom = 200
	budget := max(maxOut-noticeRoom, 100)
	lr := &lineRange{a: a, budget: budget, lineCap: min(maxLineBytes, budget/2), numWidth: 6}
	start := max(a.Start, 1)

	lineNo := 0
	var kept []byte // the kept part of the current line
	var total int   // bytes of the current line, terminator included
	inLine := false // a line has begun and not ended
	atEOF := false  // the file was read to its end
	for iter := 0; ; iter++ {
		if iter%1024 == 0 && ctx.Err() != nil {
			return tool.Fail("read_file was cancelled.")
		}
		chunk, err := r.ReadSlice('\n')
		if len(chunk) > 0 {
			if !inLine {
				lineNo++
				inLine = true
				kept, total = kept[:0], 0
			}
			if lineNo >= start && len(kept) < lr.lineCap+1 {
				kept = append(kept, chunk[:min(len(chunk), lr.lineCap+1-len(kept))]...)
			}
			total += len(chunk)
			if chunk[len(chunk)-1] == '\n' {
				inLine = false
				if lineNo >= start && !lr.add(lineNo, kept, total, true) {
					break
				}
				if a.End > 0 && lineNo >= a.End {
					break
				}
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if errors.Is(err, io.EOF) {
			atEOF = true
			if inLine && lineNo >= start {
				lr.add(lineNo, kept, total, false)
			}
			break
		}
		if err != nil {
			return tool.Fail(fmt.Sprintf("%s could not be read past line %d: %s.", a.Path, lineNo, bareError(err)))
		}
	}
	if !atEOF {
		if _, err := r.Peek(1); errors.Is(err, io.EOF) {
			atEOF = true
		}
	}
	if lineNo < start {
		return tool.Fail(fmt.Sprintf("%s has only %s, so start=%d is past its end.", a.Path, plural(lineNo, "line"), a.Start))
	}
	text := lr.out.String()
	if lr.stopped {
		text = strings.TrimSuffix(text, "\n")
		text += fmt.Sprintf("\n[Output stopped after line %d to stay within %d characters. Continue with start=%d.]", lr.lastNo, maxOut, lr.lastNo+1)
	} else if !atEOF || lr.lastNo < lineNo {
		text = strings.TrimSuffix(text, "\n")
	}
	return tool.Result{Text: text}
}

// add writes one line (kept holds at most lineCap+1 of its bytes, total counts them all);
// it returns false when the line does not fit, and the reading stops.
func (lr *lineRange) add(no int, kept []byte, total int, terminated bool) bool {
	var s string
	length := total
	if terminated {
		length--
	}
	if length > lr.lineCap {
		cut := lr.lineCap
		for cut > 0 && !utf8.RuneStart(kept[cut]) {
			cut--
		}
		s = strings.ToValidUTF8(string(kept[:cut]), "\uFFFD") + fmt.Sprintf(" … [line %d cut: %d of %d bytes shown]", no, cut, length)
		if terminated {
			s += "\n"
		}
	} else {
		s = strings.ToValidUTF8(string(kept), "\uFFFD")
	}
	if lr.a.Numbered {
		s = fmt.Sprintf("%*d\t", lr.numWidth, no) + s
	}
	n := utf8.RuneCountInString(s)
	if lr.used+n > lr.budget && lr.lastNo > 0 {
		lr.stopped = true
		return false
	}
	lr.out.WriteString(s)
	lr.used += n
	lr.lastNo = no
	return true
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return strconv.Itoa(n) + " " + word + "s"
}
