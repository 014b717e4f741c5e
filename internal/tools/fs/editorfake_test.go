package fs

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/tool"
)

// fakeEditor is an editor holding open buffers, some with unsaved text that differs from
// the disk. A file without a buffer is read from disk, as editors do; a write only
// changes the buffer (unless save is set), so that a test sees the disk was left alone.
type fakeEditor struct {
	mu           sync.Mutex
	noRead       bool // CanRead reports false
	noWrite      bool // CanWrite reports false
	bufs         map[string]string
	calls        []string // "read <path>" and "write <path>", in order
	writes       int
	failRead     error // every ReadText fails with it
	failWriteNth int   // the failWriteNth WriteText (1-based) fails; 0 for none
	// save makes a write also save the buffer to disk, as some editors do.
	save bool
}

func newFakeEditor(bufs map[string]string) *fakeEditor {
	if bufs == nil {
		bufs = map[string]string{}
	}
	return &fakeEditor{bufs: bufs}
}

func (f *fakeEditor) CanRead() bool  { return !f.noRead }
func (f *fakeEditor) CanWrite() bool { return !f.noWrite }

func (f *fakeEditor) ReadText(ctx context.Context, path string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "read "+path)
	if f.failRead != nil {
		return "", f.failRead
	}
	if s, ok := f.bufs[path]; ok {
		return s, nil
	}
	b, err := os.ReadFile(path)
	return string(b), err
}

func (f *fakeEditor) WriteText(ctx context.Context, path, content string) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, "write "+path)
	f.writes++
	if f.writes == f.failWriteNth {
		return errors.New("the buffer is read-only")
	}
	f.bufs[path] = content
	if f.save {
		return os.WriteFile(path, []byte(content), 0o644)
	}
	return nil
}

// buffer returns the editor's text of path and whether it has a buffer for it.
func (f *fakeEditor) buffer(path string) (string, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	s, ok := f.bufs[path]
	return s, ok
}

// callLog returns the calls made so far.
func (f *fakeEditor) callLog() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.calls...)
}

// callEditor runs tl with args in dir, with ed as the face's editor.
func callEditor(t testing.TB, tl tool.Tool, dir string, ed tool.Editor, args any) tool.Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	inv, msg := tl.Decode(tool.Env{Cwd: dir, Editor: ed}, raw)
	if msg != "" {
		return tool.Fail(msg)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return inv.Run(ctx)
}
