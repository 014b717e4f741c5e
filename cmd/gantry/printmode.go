package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/ui/printmode"
)

func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// stdinWait is how long print mode waits for the first byte of a piped stdin when a
// prompt was given too; a producer slower than that is not waited for (a warning says
// how to wait for it).
const stdinWait = 3 * time.Second

// runPrint is print mode: one prompt, run to the end.
func runPrint(f *flags) int {
	if !f.print && isTerminal(os.Stdin) && f.prompt == "" {
		releaseInit()
		return runTUI(f)
	}
	format, err := printmode.ParseFormat(f.outputFormat)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", err)
		return 2
	}
	prompt, err := readPrompt(f.prompt, os.Stdin)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 2
	}
	if strings.TrimSpace(prompt) == "" {
		fmt.Fprintln(os.Stderr, "gantry: no prompt: give one after -p or on stdin")
		return 2
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	ctx, stopBounds := f.limits.bind(ctx) // --max-duration, --max-cost (bounds.go)
	defer stopBounds()

	var asker face.Asker = &headless{} // a question ends the run (headless.go)
	if f.refuseQuestions {
		asker = face.NoHuman{} // a question is refused to the model, and the run goes on
	}
	var printer *printmode.Printer
	if f.interactive {
		tty, closeTTY, ok := printmode.OpenTerminal(func() { printer.Flush() })
		if !ok {
			fmt.Fprintln(os.Stderr, "gantry: --interactive needs a terminal to ask at, and none is attached")
			return 2
		}
		defer closeTTY()
		asker = tty
	}
	resumeGC := deferGC() // until the model answers (startgc.go)
	defer resumeGC()
	// --max-cost's check of the model, --output-schema's instruction (bounds.go)
	opts := f.limits.runOptions(appOptions(f))
	opts.OnePrompt = true // a hook's wake after the answer starts no turn: gantry exits
	a, err := app.New(opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		if isStoreErr(err) {
			return exitStore
		}
		return exitCode(err)
	}
	if h, ok := asker.(*headless); ok && !f.trustGiven && !a.FolderTrust().Trusted() {
		h.asked(trustQuestion(a.FolderTrust())) // before anything of the session runs
	}
	code := runPrompt(ctx, a, asker, &printer, format, prompt, resumeGC, &f.limits)
	for _, w := range a.EndSession(app.EndOther) {
		fmt.Fprintln(os.Stderr, "gantry:", w)
	}
	if err := a.Close(); err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		code = max(code, 1)
	}
	return code
}

// runPrompt runs prompt in a and prints it; it returns the exit status.
// resumeGC is called once the model's answer starts.
func runPrompt(ctx context.Context, a *app.App, asker face.Asker, printer **printmode.Printer, format printmode.Format, prompt string, resumeGC func(), lim *limits) int {
	*printer = printmode.New(lim.printOut(format), printmode.Options{
		Format: format, PreviewLines: a.PreviewLines(), FlushAfter: 10 * time.Millisecond, Diag: os.Stderr,
		Color: isTerminal(os.Stdout) && os.Getenv("NO_COLOR") == "",
	})
	p := *printer
	h, _ := asker.(*headless)
	if h != nil {
		ctx = h.bind(ctx)
		defer h.stop()
		if need := h.question(); need != "" { // the folder's trust, asked before the run
			return finishRun(p, face.TurnEnded{StopReason: "cancelled"}, need)
		}
	}
	var released sync.Once
	sink := func(e face.Event) {
		if fromModel(e) {
			resumeGC()
			released.Do(func() { go releaseInit() }) // while the model answers (main.go)
		}
		lim.watch(e)
		p.Handle(e)
	}
	if err := a.Start(ctx, sink, asker); err != nil {
		p.Flush()
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	a.SetTitle(prompt)
	prompt, notes := a.ExpandPrompt(prompt)
	for _, n := range notes {
		p.Handle(face.Notice{Text: n})
	}
	end, answer := lim.run(ctx, a, prompt) // bounds and --output-schema (outputschema.go)
	p.SetStructured(answer)
	code := finishRun(p, end, h.question())
	if code == exitSuccess {
		if err := lim.printAnswer(format, answer); err != nil {
			fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
			return exitError
		}
	}
	return code
}

// finishRun writes the run's result and its sentence on stderr, and returns its exit
// status (runOutcome).
func finishRun(p *printmode.Printer, end face.TurnEnded, need string) int {
	code, o, say := runOutcome(end, need)
	p.FinishAs(end, o)
	if say != "" {
		fmt.Fprintln(os.Stderr, "gantry:", say)
	}
	return code
}

// readPrompt is the prompt of print mode: the words given, and what is piped on
// stdin after them (as Claude Code reads `echo DATA | claude -p "summarize"`). With
// no words the piped text is the prompt. A pipe that sends nothing within stdinWait
// is not waited for when words were given.
func readPrompt(words string, stdin *os.File) (string, error) {
	if isTerminal(stdin) {
		return words, nil
	}
	type chunk struct {
		b   []byte
		err error
	}
	first := make(chan chunk, 1)
	r := io.LimitReader(stdin, maxPipedPrompt+1)
	go func() {
		buf := make([]byte, 64<<10)
		n, err := r.Read(buf)
		first <- chunk{buf[:n], err}
	}()
	var c chunk
	if words == "" {
		c = <-first
	} else {
		select {
		case c = <-first:
		case <-time.After(stdinWait):
			fmt.Fprintf(os.Stderr, "gantry: no input arrived on stdin within %v, so the prompt goes without it (redirect stdin from /dev/null to skip the wait, or give the whole prompt on stdin)\n", stdinWait)
			return words, nil
		}
	}
	data := c.b
	if c.err == nil {
		rest, err := io.ReadAll(r)
		if err != nil {
			return "", fmt.Errorf("reading stdin: %w", err)
		}
		data = append(data, rest...)
	} else if c.err != io.EOF {
		return "", fmt.Errorf("reading stdin: %w", c.err)
	}
	if len(data) > maxPipedPrompt {
		return "", fmt.Errorf("stdin holds more than %d MB; give the model a path to read instead", maxPipedPrompt>>20)
	}
	piped := string(data)
	switch {
	case words == "":
		return piped, nil
	case strings.TrimSpace(piped) == "":
		return words, nil
	}
	return words + "\n\n" + piped, nil
}

// maxPipedPrompt bounds what print mode reads from stdin.
const maxPipedPrompt = 10 << 20

// appOptions are the session options the flags give.
func appOptions(f *flags) app.Options {
	return app.Options{
		Cwd: f.cwd, Provider: f.provider, Model: f.model, PermissionMode: f.permissionMode, Sandbox: f.sandbox.ptr(),
		Allow: f.allow, Deny: f.deny, MaxTurns: f.maxTurns, SystemPrompt: f.systemPrompt,
		AppendSystemPrompt: f.appendSystemPrompt, Continue: f.cont, Resume: f.resume, Fork: f.fork,
		Vibe: f.vibe, Trust: f.trust, Store: f.limits.store(),
	}
}

// exitCode is the exit status of an error that stops gantry before a turn: 2 for a
// usage error, else 1.
func exitCode(err error) int {
	var ue *app.UsageError
	if errors.As(err, &ue) {
		return 2
	}
	return 1
}

// sentence makes an error read as one sentence.
func sentence(err error) string {
	s := err.Error()
	if !strings.HasSuffix(s, ".") {
		s += "."
	}
	return s
}
