// Package evaltool is the eval tool: cells of Python or JavaScript run in persistent
// kernels (internal/kernel), one per language per conversation, started when first
// needed and closed with the conversation.
package evaltool

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/kernel"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/tool"
)

//go:embed eval.md
var doc string

// DefaultIdle is a cell's default idle budget.
const DefaultIdle = 5 * time.Minute

type args struct {
	Code        string `json:"code" jsonschema_description:"The cell: Python (IPython idioms such as !cmd and %pip work) or JavaScript (top-level await works)."`
	Description string `json:"description" jsonschema_description:"What the cell does, in 5 to 10 words (shown as its title)."`
	Language    string `json:"language,omitempty" jsonschema:"enum=python,enum=javascript" jsonschema_description:"The kernel's language (default python)."`
	Reset       bool   `json:"reset,omitempty" jsonschema_description:"Drop the kernel's state and start it afresh before the cell."`
}

// Options configure the tool.
type Options struct {
	// Python and Node are the interpreters ("": the project's .venv/bin/python or
	// venv/bin/python, else python3; node).
	Python, Node string
	// Idle is a cell's budget of time without a sign of life (0: DefaultIdle).
	Idle time.Duration
	// Policy is the session's: kernels run under its deny rules, sandbox (asked when
	// a kernel starts) and environment, as bash commands do (nil: gantry's own).
	Policy *contain.Policy
}

// Kernels is a conversation's eval tool and its kernels: a toolset, closed with the
// conversation.
type Kernels struct {
	o  Options
	mu sync.Mutex
	k  map[string]*kernel.Kernel
	// run serialises cells: calls of a conversation do not overlap, but a relayed
	// call must not start a cell in the same kernel.
	run sync.Mutex
}

// New returns the eval tool's toolset.
func New(o Options) *Kernels {
	if o.Idle <= 0 {
		o.Idle = DefaultIdle
	}
	return &Kernels{o: o, k: map[string]*kernel.Kernel{}}
}

// Tools is the eval tool.
func (ks *Kernels) Tools() []tool.Tool { return []tool.Tool{ks.tool()} }

// Close stops every kernel.
func (ks *Kernels) Close(context.Context) error {
	ks.mu.Lock()
	all := ks.k
	ks.k = map[string]*kernel.Kernel{}
	ks.mu.Unlock()
	for _, k := range all {
		k.Close()
	}
	return nil
}

// Kernel is the running kernel of lang (nil: none), for tests and measurements.
func (ks *Kernels) Kernel(lang string) *kernel.Kernel {
	ks.mu.Lock()
	defer ks.mu.Unlock()
	return ks.k[lang]
}

// Usable tells whether an interpreter of either language is installed.
func (ks *Kernels) Usable() bool {
	for _, p := range []string{ks.o.Python, "python3", ks.o.Node, "node"} {
		if p == "" {
			continue
		}
		if _, err := exec.LookPath(p); err == nil {
			return true
		}
	}
	return false
}

func (ks *Kernels) tool() tool.Tool {
	return tool.New(tool.Def[args]{
		Name:        "eval",
		Family:      "Python and JavaScript kernels",
		Label:       "Run Python or JavaScript in a kernel",
		Description: doc,
		Level:       tool.LevelExec,
		Kind:        tool.KindExecute,
		Icon:        "🧪",
		Counter:     tool.CountCommand,
		Principal:   func(a args) string { return a.Code },
		Title: func(_ tool.Env, a args, _ []string) string {
			lang := a.Language
			if lang == "" {
				lang = "python"
			}
			return fmt.Sprintf("%s (%s)", strings.TrimSpace(a.Description), lang)
		},
		Code: func(a args) (string, string) {
			if a.Language == "javascript" {
				return "javascript", a.Code
			}
			return "python", a.Code
		},
		Check: check,
		Run:   ks.runCell,
	})
}

func check(a args) string {
	if a.Language != "" && !slices.Contains(kernel.Languages, a.Language) {
		return fmt.Sprintf("eval knows no language %q; it runs python and javascript.", a.Language)
	}
	if strings.TrimSpace(a.Code) == "" {
		return `eval needs the cell's "code".`
	}
	n := len(strings.Fields(a.Description))
	if n == 0 {
		return `eval needs a "description" of the cell in 5 to 10 words.`
	}
	if n < 3 || n > 16 {
		return fmt.Sprintf(`eval's "description" says what the cell does in 5 to 10 words; %d words is not that.`, n)
	}
	return ""
}

// interpreter is lang's program for a kernel in cwd.
func (ks *Kernels) interpreter(lang, cwd string) (string, error) {
	if lang == "javascript" {
		p := ks.o.Node
		if p == "" {
			p = "node"
		}
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("no Node.js here (%s not found; eval.node names another)", p)
		}
		return path, nil
	}
	p := ks.o.Python
	if p == "" {
		for _, v := range []string{".venv", "venv"} {
			c := filepath.Join(cwd, v, "bin", "python")
			if fi, err := os.Stat(c); err == nil && !fi.IsDir() {
				p = c
				break
			}
		}
	}
	if p == "" {
		p = "python3"
	}
	path, err := exec.LookPath(p)
	if err != nil {
		return "", fmt.Errorf("no Python here (%s not found; eval.python names another)", p)
	}
	return path, nil
}

// get is lang's kernel, started when there is none (or it died).
func (ks *Kernels) get(ctx context.Context, lang, cwd string) (*kernel.Kernel, bool, error) {
	ks.mu.Lock()
	k := ks.k[lang]
	ks.mu.Unlock()
	if k != nil && k.Alive() {
		return k, false, nil
	}
	if k != nil {
		k.Close()
	}
	interp, err := ks.interpreter(lang, cwd)
	if err != nil {
		return nil, false, err
	}
	o := kernel.Options{Language: lang, Interpreter: interp, Dir: cwd, Policy: ks.o.Policy}
	k, err = kernel.Start(ctx, o)
	if err != nil {
		return nil, false, err
	}
	ks.mu.Lock()
	ks.k[lang] = k
	ks.mu.Unlock()
	return k, true, nil
}

func (ks *Kernels) drop(lang string, k *kernel.Kernel) {
	ks.mu.Lock()
	if ks.k[lang] == k {
		delete(ks.k, lang)
	}
	ks.mu.Unlock()
	k.Close()
}

func (ks *Kernels) runCell(ctx context.Context, env tool.Env, a args) tool.Result {
	if !ks.run.TryLock() {
		return tool.Fail("A cell is running already: a cell's tool() cannot run eval.")
	}
	defer ks.run.Unlock()
	lang := a.Language
	if lang == "" {
		lang = "python"
	}
	var notes []string
	if a.Reset {
		if k := ks.Kernel(lang); k != nil {
			ks.drop(lang, k)
			notes = append(notes, "[the "+lang+" kernel was reset: its state is gone]")
		}
	}
	had := ks.Kernel(lang)
	k, fresh, err := ks.get(ctx, lang, env.Cwd)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Fail("eval was cancelled before the kernel started.")
		}
		return tool.Fail(fmt.Sprintf("The %s kernel cannot start: %s.", lang, strings.TrimSuffix(err.Error(), ".")))
	}
	if fresh && had != nil {
		notes = append(notes, "[the "+lang+" kernel had ended; this is a new one: earlier state is gone]")
	}
	relay := tool.RelayOf(ctx)
	var ro kernel.RunOptions
	ro.Idle = ks.o.Idle
	ro.Relay = func(ctx context.Context, name string, input json.RawMessage) (string, bool) {
		if relay == nil {
			return "tool() is not available here: no loop runs this cell.", true
		}
		if name == "eval" {
			return "A cell cannot run eval.", true
		}
		if len(input) == 0 || string(input) == "null" {
			input = json.RawMessage("{}")
		}
		r := relay(ctx, name, input)
		return r.Text, r.IsError
	}
	c, err := k.Run(ctx, a.Code, ro)
	if err != nil {
		ks.drop(lang, k)
		return tool.Fail(fmt.Sprintf("The %s kernel could not take the cell (%v); it was stopped, and the next call starts a new one.", lang, err))
	}
	return ks.result(lang, c, notes, k)
}

// result is what the model reads of a cell: its output in order, its value, its
// error, images as image blocks, and what became of the kernel.
func (ks *Kernels) result(lang string, c *kernel.Cell, notes []string, k *kernel.Kernel) tool.Result {
	var b strings.Builder
	for _, n := range notes {
		b.WriteString(n + "\n")
	}
	var images []llm.Image
	var sizes []string
	for i, it := range c.Items {
		switch it.Kind {
		case "stdout":
			b.WriteString(it.Text)
			if !strings.HasSuffix(it.Text, "\n") {
				b.WriteString("\n")
			}
		case "stderr":
			b.WriteString("[stderr] " + strings.ReplaceAll(strings.TrimRight(it.Text, "\n"), "\n", "\n[stderr] ") + "\n")
		case "text", "markdown":
			if i == c.Result {
				b.WriteString("→ ")
			}
			b.WriteString(it.Text + "\n")
		case "image":
			images = append(images, llm.Image{MediaType: "image/png", Data: it.PNG})
			size := "image"
			if cfg, err := png.DecodeConfig(bytes.NewReader(it.PNG)); err == nil {
				size = fmt.Sprintf("image %dx%d", cfg.Width, cfg.Height)
			}
			sizes = append(sizes, size)
			fmt.Fprintf(&b, "[%s]\n", size)
		}
	}
	if c.ImagesCut > 0 {
		fmt.Fprintf(&b, "[%d more images not attached]\n", c.ImagesCut)
	}
	isErr := false
	if c.Error != "" {
		b.WriteString(c.Error + "\n")
		isErr = true
	}
	switch c.Status {
	case "ok", "error":
		if c.Interrupted != "" {
			fmt.Fprintf(&b, "[interrupted: %s; the cell caught the interrupt and ended; the kernel and its state survived]\n", c.Interrupted)
			isErr = true
		}
	case "interrupted":
		fmt.Fprintf(&b, "[interrupted: %s; the kernel and its state survived]\n", c.Interrupted)
		isErr = true
	case "killed":
		ks.drop(lang, k)
		fmt.Fprintf(&b, "[interrupted: %s; the cell did not stop, so the kernel was killed and its state is lost: the next call starts a new one]\n", c.Interrupted)
		isErr = true
	case "died":
		ks.drop(lang, k)
		b.WriteString("[the kernel ended during the cell (killed from outside, out of memory, or its protocol closed): its state is lost; the next call starts a new one]\n")
		isErr = true
	}
	text := strings.TrimRight(b.String(), "\n")
	if text == "" {
		text = "(no output)"
	}
	// The loop bounds the text (tool.Fit) and saves it whole when it cuts it; the
	// model reads a command's short preview of it.
	note := ""
	if len(sizes) > 0 {
		note = "[" + strings.Join(sizes, "] [") + "]"
	}
	return tool.Result{Text: text, IsError: isErr, Images: images, Display: tool.Display{Note: note}, Preview: tool.ShellPreview}
}
