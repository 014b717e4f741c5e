package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/gantry-dev/gantry/internal/face"
)

// TrustFolder implements face.Asker. The terminal opens its first session before the
// program runs, so the question is asked there in plain lines on the terminal, which
// is still the shell's (cooked: the answer is a line). Later sessions of the same
// folder (/clear, /resume) are opened from inside the program, where no dialog could
// be answered: they run none of the folder's files, and the notice names --trust.
func (a *asker) TrustFolder(ctx context.Context, req face.TrustRequest) (bool, error) {
	if a.early == nil {
		return false, errors.Join(face.ErrNoHuman, errors.New("the terminal UI asks only before its first session opens"))
	}
	return a.early.ask(ctx, req)
}

// lineQuestion asks on the terminal before the program takes it.
type lineQuestion struct {
	in  io.Reader
	out io.Writer
}

func (q *lineQuestion) ask(ctx context.Context, req face.TrustRequest) (bool, error) {
	fmt.Fprintf(q.out, "%s\n", strings.Join(req.Lines(), "\n"))
	for ctx.Err() == nil {
		fmt.Fprint(q.out, "Trust this folder and run them? [y/n] ")
		line, err := readLine(q.in)
		if err != nil {
			return false, fmt.Errorf("reading the answer: %w", err)
		}
		switch strings.ToLower(strings.TrimSpace(line)) {
		case "y", "yes":
			return true, nil
		case "n", "no":
			return false, nil
		}
	}
	return false, ctx.Err()
}

// readLine reads up to a newline one byte at a time, so that nothing after it is
// taken from the terminal the program reads next.
func readLine(r io.Reader) (string, error) {
	var b strings.Builder
	buf := make([]byte, 1)
	for {
		n, err := r.Read(buf)
		if n == 1 {
			if buf[0] == '\n' || buf[0] == '\r' {
				return b.String(), nil
			}
			b.WriteByte(buf[0])
		}
		if err != nil {
			if err == io.EOF && b.Len() > 0 {
				return b.String(), nil
			}
			return "", err
		}
	}
}
