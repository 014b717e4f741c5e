package setup

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// runWith runs the setup as a program reading the bytes of input from a pipe (not a
// terminal) and writing to a buffer; the pipe stays open until Run returns, so that
// its end is not mistaken for the end of the setup.
func runWith(t *testing.T, input string) (Result, string, error) {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if _, err := w.WriteString(input); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	type ran struct {
		res Result
		err error
	}
	done := make(chan ran, 1)
	go func() {
		res, err := Run(r, &out, Options{})
		done <- ran{res, err}
	}()
	select {
	case d := <-done:
		return d.res, out.String(), d.err
	case <-time.After(10 * time.Second):
		w.Close() // ends the program: its input is gone
		testenv.Recv(t, done, testenv.Bound, "Run to end once its input closed")
		t.Fatal("Run did not end")
		return Result{}, "", nil
	}
}

func TestRunOnAPipe(t *testing.T) {
	dir := sandbox(t)
	// Down to openai, Enter; the key, Enter; the default model, Enter; save, Enter.
	res, out, err := runWith(t, "\x1b[B\r"+"sk-run-1\r"+"\r"+"\r")
	if err != nil {
		t.Fatal(err)
	}
	if want := (Result{Provider: "openai", Model: "gpt-5", StoredKey: true}); res != want {
		t.Fatalf("result %+v, want %+v", res, want)
	}
	if c, err := config.LoadCredentials(); err != nil || c.OpenAIAPIKey != "sk-run-1" {
		t.Errorf("credentials %+v, %v", c, err)
	}
	if got := readFile(t, filepath.Join(dir, "config.yaml")); !strings.HasSuffix(got, "provider: openai\nmodel: gpt-5\n") {
		t.Errorf("config.yaml:\n%s", got)
	}
	// The renderer draws at most a frame per tick: keys read at once show only the end.
	if !strings.Contains(out, "gantry is set up") {
		t.Errorf("output lacks the views:\n%q", out)
	}
	if strings.Contains(out, "sk-run-1") {
		t.Error("the key was echoed")
	}
}

func TestRunAbortedByCtrlCOrEsc(t *testing.T) {
	// A lone ESC byte is told from the start of a sequence by a short wait.
	for _, input := range []string{"2sk-x\x03", "2sk-x\x1b", "\x1b"} {
		dir := sandbox(t)
		res, _, err := runWith(t, input)
		if err != nil {
			t.Fatalf("%q: %v", input, err)
		}
		if res != (Result{Aborted: true}) {
			t.Fatalf("%q: result %+v", input, res)
		}
		if got := files(t, dir); len(got) != 0 {
			t.Errorf("%q: files written: %v", input, got)
		}
	}
}

func TestRunEndsWhenItsInputDoes(t *testing.T) {
	dir := sandbox(t)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	w.WriteString("1sk-x\r")
	w.Close()
	done := make(chan error, 1)
	var res Result
	go func() {
		var err error
		res, err = Run(r, &bytes.Buffer{}, Options{})
		done <- err
	}()
	select {
	case err := <-done:
		if !errors.Is(err, ErrInputEnded) {
			t.Errorf("err = %v, want ErrInputEnded", err)
		}
		if !res.Aborted {
			t.Errorf("result %+v", res)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Run did not end with its input")
	}
	if got := files(t, dir); len(got) != 0 {
		t.Errorf("files written: %v", got)
	}
}

func TestRunWithWholeInputThenItsEnd(t *testing.T) {
	// The end of the input comes after the keys read before it, however fast: a
	// complete setup is not cut short by it.
	for i := range 20 {
		dir := sandbox(t)
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		w.WriteString("34sk-y\r\r\r")
		w.Close()
		res, err := Run(r, &bytes.Buffer{}, Options{})
		r.Close()
		if err != nil || res != (Result{Provider: "openai-chat", Model: "gpt-5", StoredKey: true}) {
			t.Fatalf("run %d: %+v, %v", i, res, err)
		}
		if got := files(t, dir); len(got) != 2 {
			t.Fatalf("run %d: files %v", i, got)
		}
	}
	// Any reader will do, not only a file.
	sandbox(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-env")
	res, err := Run(strings.NewReader("\r\r\r\r"), &bytes.Buffer{}, Options{Width: 60})
	if err != nil || res != (Result{Provider: "anthropic", Model: "claude-sonnet-4-5"}) {
		t.Fatalf("strings.Reader: %+v, %v", res, err)
	}
}
