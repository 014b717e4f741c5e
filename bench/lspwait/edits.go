package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/lsp"
	"github.com/gantry-dev/gantry/internal/resource"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/fs"
	"github.com/gantry-dev/gantry/internal/tools/lsptool"
)

// edits times write_file under lsptool.OnWrite, the way an agent's edit runs, against
// the server's own time for the same write: per server (on a copy of its fixture
// project), a first write in a new Manager (the server starts) and n warm writes
// that alternately add a type error at the end of the file and take it out again (so
// every write changes the file's diagnostics and every server publishes). For each
// write it prints, side by side:
//
//   - own: the server's own time, from the didChange (or didOpen) of the written
//     version sent to its publishDiagnostics received (the first of that version, or
//     for a server without versions the first after the sync);
//   - wait: what OnWrite added to the write: the wrapped call's time minus a plain
//     write_file of the same content to a file no server serves;
//   - and their ratio (target: wait ≤ own × 1.1).
//
// The case "none" times OnWrite on files no server serves: a .txt (no row), a .go in a
// folder without go.mod (no root marker) and a .zzz whose row's binary is missing; its
// wait should be nothing, and no server may start.
func edits(repo, npmBin string, cases []string, n int) {
	for _, c := range cases {
		switch c = strings.TrimSpace(c); c {
		case "":
		case "none":
			editsNone(n)
		default:
			editsServer(repo, npmBin, c, n)
		}
	}
}

// editRecorder keeps a path's syncs and publishes.
type editRecorder struct {
	mu     sync.Mutex
	path   string
	events []lsp.Event
}

func (r *editRecorder) observe(e lsp.Event) {
	if e.Path != r.path || (e.Kind != lsp.EventSync && e.Kind != lsp.EventPublish) {
		return
	}
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
}

// own is the server's own time for the last sync at or after t: from that sync to
// the publish answering it; ok false when none is recorded.
// synced and published are when that sync was sent and that publish received.
func (r *editRecorder) own(t time.Time) (d time.Duration, synced, published time.Time, ok bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var sync *lsp.Event
	for i := range r.events {
		e := &r.events[i]
		if e.At.Before(t) {
			continue
		}
		switch {
		case e.Kind == lsp.EventSync:
			sync, ok = e, false
		case sync != nil && !ok && (e.Version < 0 || e.Version >= sync.Version):
			d, synced, published, ok = e.At.Sub(sync.At), sync.At, e.At, true
		}
	}
	return d, synced, published, ok
}

// timeline lists the events at or after t, for the first write's line.
func (r *editRecorder) timeline(t time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []string
	for _, e := range r.events {
		if !e.At.Before(t) {
			out = append(out, fmt.Sprintf("%s v%d (%d) at %s", e.Kind, e.Version, e.Count, msf(e.At.Sub(t))))
		}
	}
	return strings.Join(out, "; ")
}

func editsServer(repo, npmBin, name string, n int) {
	dir, err := os.MkdirTemp("", "lspwait-edit-"+name+"-")
	if err != nil {
		fail(err)
	}
	cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
	defer func() { _ = os.RemoveAll(dir); cleanups = cleanups[:len(cleanups)-1] }()
	fixtures := filepath.Join(repo, "internal/lsp/testdata/projects")
	var file, bad string
	switch name {
	case "gopls":
		copyTree(filepath.Join(fixtures, "go"), dir)
		file, bad = "total.go", "var Bad int = \"x\"\n"
	case "clangd":
		copyTree(filepath.Join(fixtures, "c"), dir)
		in, err := os.ReadFile(filepath.Join(dir, "compile_commands.json.in"))
		if err != nil {
			fail(err)
		}
		must(os.WriteFile(filepath.Join(dir, "compile_commands.json"), []byte(strings.ReplaceAll(string(in), "${DIR}", dir)), 0o644))
		file, bad = "shapes.c", "int bad(void) { return undefined_name; }\n"
	case "typescript":
		if _, err := os.Stat(filepath.Join(npmBin, "typescript-language-server")); err != nil {
			fmt.Printf("edit typescript: not installed under %s; skipped\n", npmBin)
			return
		}
		copyTree(filepath.Join(fixtures, "ts"), dir)
		file, bad = "src/total.ts", "export const bad: number = \"x\";\n"
	default:
		fail(fmt.Errorf("unknown edit case %q", name))
	}
	abs := filepath.Join(dir, file)
	orig, err := os.ReadFile(abs)
	if err != nil {
		fail(err)
	}
	scratch := filepath.Join(dir, "scratch.txt")
	rec := &editRecorder{path: abs}
	pool := resource.NewPool(nil)
	cleanups = append(cleanups, func() { _ = pool.Close(context.Background()) })
	defer func() { _ = pool.Close(context.Background()); cleanups = cleanups[:len(cleanups)-1] }()
	m := lsp.NewManager(pool, lsp.Options{Observe: rec.observe, LookPath: func(cmd string) (string, error) {
		if p := filepath.Join(npmBin, cmd); executableFile(p) {
			return p, nil
		}
		return exec.LookPath(cmd)
	}})
	plain := fs.WriteFile(fs.Options{})
	wrapped := lsptool.OnWrite(plain, m, lsptool.NewSeen())
	env := tool.Env{Cwd: dir}
	ctx := context.Background()
	var waits, owns []time.Duration
	for k := 0; k <= n; k++ {
		content := string(orig) + fmt.Sprintf("// edit %d\n", k)
		if k%2 == 0 {
			content += bad
		}
		p0 := time.Now()
		writeCall(ctx, plain, env, scratch, content)
		p := time.Since(p0)
		t0 := time.Now()
		text := writeCall(ctx, wrapped, env, file, content)
		t1 := time.Now()
		w := t1.Sub(t0) - p
		own, synced, published, ok := rec.own(t0)
		label := fmt.Sprintf("warm %d", k)
		if k == 0 {
			label = "first (server starts)"
		}
		ownS, ratio := "no publish", ""
		if ok {
			// Beside the ratio, gantry's own parts: from the call's start to the sync
			// sent (less the plain write), and from the publish to the result.
			ownS, ratio = msf(own), fmt.Sprintf("%.2f× (before the sync %s, after the publish %s)",
				float64(w)/float64(max(own, time.Microsecond)), msf(synced.Sub(t0)-p), msf(t1.Sub(published)))
		}
		fmt.Printf("  %s %-22s own %-10s wait %-10s %s %s\n", name, label, ownS, msf(w), ratio, diagNote(text))
		if k == 0 {
			fmt.Printf("    (first write's events: %s)\n", rec.timeline(t0))
		}
		if k > 0 && ok {
			waits, owns = append(waits, w), append(owns, own)
		}
	}
	if len(waits) > 0 {
		var extra []time.Duration
		for i := range waits {
			extra = append(extra, waits[i]-owns[i])
		}
		fmt.Printf("edit %-10s warm, median of %d: server's own %s, gantry's wait %s, wait − own %s (max %s)\n",
			name, len(waits), msf(median(owns)), msf(median(waits)), msf(median(extra)), msf(slices.Max(extra)))
	}
}

// editsNone times OnWrite on files no server serves, n times each, and checks that
// no server started.
func editsNone(n int) {
	dir, err := os.MkdirTemp("", "lspwait-edit-none-")
	if err != nil {
		fail(err)
	}
	cleanups = append(cleanups, func() { _ = os.RemoveAll(dir) })
	defer func() { _ = os.RemoveAll(dir); cleanups = cleanups[:len(cleanups)-1] }()
	pool := resource.NewPool(nil)
	defer func() { _ = pool.Close(context.Background()) }()
	servers := lsp.Merge(lsp.Defaults(), []lsp.Spec{{Name: "zzz", Commands: []string{"no-such-language-server-zzz"}, Markers: []string{".git"}, Extensions: []string{".zzz"}}})
	must(os.Mkdir(filepath.Join(dir, ".git"), 0o755))
	m := lsp.NewManager(pool, lsp.Options{Servers: servers})
	plain := fs.WriteFile(fs.Options{})
	wrapped := lsptool.OnWrite(plain, m, lsptool.NewSeen())
	env := tool.Env{Cwd: dir}
	ctx := context.Background()
	for _, f := range []struct{ file, why string }{{"notes.txt", "no row"}, {"main.go", "no go.mod"}, {"x.zzz", "binary missing"}} {
		var waits []time.Duration
		var first time.Duration
		for k := 0; k <= n; k++ {
			content := fmt.Sprintf("edit %d\n", k)
			p0 := time.Now()
			writeCall(ctx, plain, env, "scratch.txt", content)
			p := time.Since(p0)
			t0 := time.Now()
			writeCall(ctx, wrapped, env, f.file, content)
			w := time.Since(t0) - p
			if k == 0 {
				first = w
			} else {
				waits = append(waits, w)
			}
		}
		fmt.Printf("edit none %-10s (%s): first %s, median of %d %s (max %s)\n", f.file, f.why, msf(first), n, msf(median(waits)), msf(slices.Max(waits)))
	}
	if r := pool.Running(); len(r) > 1 || (len(r) == 1 && r[0].Kind != "dirwatch") {
		fail(fmt.Errorf("a write to a file no server serves started %v", r))
	}
}

// writeCall decodes and runs one write_file call, as the agent does, and returns its
// text.
func writeCall(ctx context.Context, t tool.Tool, env tool.Env, path, content string) string {
	raw, _ := json.Marshal(map[string]any{"path": path, "content": content})
	inv, msg := t.Decode(env, raw)
	if msg != "" {
		fail(fmt.Errorf("write %s: %s", path, msg))
	}
	r := inv.Run(ctx)
	if r.IsError {
		fail(fmt.Errorf("write %s: %s", path, r.Text))
	}
	return r.Text
}

// diagNote sums up the diagnostics a write's result reports.
func diagNote(text string) string {
	_, after, ok := strings.Cut(text, tool.DiagnosticsHeading)
	if !ok {
		if i := strings.LastIndex(text, "("); i >= 0 && strings.Contains(text[i:], "diagnostics") {
			return strings.TrimSpace(text[i:])
		}
		return "(no new diagnostics)"
	}
	return fmt.Sprintf("(%d new diagnostics)", strings.Count(strings.TrimSpace(after), "\n")+1)
}

func copyTree(from, to string) {
	cp := exec.Command("cp", "-a", from+"/.", to)
	cp.Stderr = os.Stderr
	if err := cp.Run(); err != nil {
		fail(err)
	}
}

func executableFile(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func msf(d time.Duration) string { return fmt.Sprintf("%.2f ms", float64(d.Microseconds())/1000) }
