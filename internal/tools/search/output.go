package search

import (
	"container/heap"
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/tool"
)

// collector gathers the results of the files searched concurrently. In content mode it
// keeps only the files, in path order, whose rendered lines fit the budget, so that a
// pattern matching everywhere costs no more memory than the output the model sees;
// the totals still count everything.
type collector struct {
	mu          sync.Mutex
	mode        outputMode
	budget      int
	kept        resultHeap // largest path on top
	size        int        // bytes of output kept
	dropped     bool       // some content was left out for the budget
	files       int        // files with a match
	matches     int        // matching lines in all of them
	unreadables int        // files or folders that could not be read
}

func newCollector(mode outputMode, budget int) *collector {
	return &collector{mode: mode, budget: budget}
}

func (c *collector) unreadable() {
	c.mu.Lock()
	c.unreadables++
	c.mu.Unlock()
}

func (c *collector) add(r fileResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.files++
	c.matches += r.count
	if c.mode != modeContent {
		c.kept = append(c.kept, r)
		return
	}
	if c.size >= c.budget && len(c.kept) > 0 && r.path > c.kept[0].path {
		c.dropped = true
		return
	}
	heap.Push(&c.kept, r)
	c.size += len(r.out)
	for len(c.kept) > 1 && c.size-len(c.kept[0].out) >= c.budget {
		c.size -= len(heap.Pop(&c.kept).(fileResult).out)
		c.dropped = true
	}
}

// render writes the output: the results in path order, head_limit applied, bounded to
// maxOut bytes, with a closing line saying what was left out (tool.Within keeps the
// whole within the bound).
func (c *collector) render(a grepArgs, shown string, maxOut int, whole *wholeList) string {
	rs := []fileResult(c.kept)
	sort.Slice(rs, func(i, j int) bool { return rs[i].path < rs[j].path })
	if c.files == 0 {
		msg := fmt.Sprintf("No matches for %s in %s.", quote(a.Pattern), shown)
		if c.unreadables > 0 {
			msg += fmt.Sprintf(" %s could not be read.", plural(c.unreadables, "file or folder"))
		}
		return msg
	}
	var b strings.Builder
	lines, cut := 0, false
	limit := a.HeadLimit
	emit := func(s string) bool {
		if (limit > 0 && lines >= limit) || b.Len()+len(s) > maxOut {
			cut = true
			return false
		}
		b.WriteString(s)
		lines++
		return true
	}
files:
	for i, r := range rs {
		switch c.mode {
		case modeFiles:
			if !emit(r.path + "\n") {
				break files
			}
			continue
		case modeCount:
			if !emit(fmt.Sprintf("%s:%d\n", r.path, r.count)) {
				break files
			}
			continue
		}
		if i > 0 && a.Context > 0 && !emit("--\n") {
			break
		}
		for rest := string(r.out); rest != ""; {
			ln, tail, _ := strings.Cut(rest, "\n")
			if !emit(ln + "\n") {
				break files
			}
			rest = tail
		}
	}
	cut = cut || c.dropped
	out := strings.TrimSuffix(b.String(), "\n")
	var notes []string
	if cut {
		switch c.mode {
		case modeContent:
			notes = append(notes, fmt.Sprintf("[output cut: %s in %s match in all; narrow the pattern, path or glob, or raise head_limit]", plural(c.matches, "line"), plural(c.files, "file")))
		case modeCount:
			notes = append(notes, fmt.Sprintf("[showing %s of %s with matches; %snarrow the search]", thousands(lines), plural(c.files, "file"), whole.note(func() string { return c.list(rs) })))
		default:
			notes = append(notes, fmt.Sprintf("[showing %s of %s; %snarrow the pattern, path or glob]", thousands(lines), plural(c.files, "file"), whole.note(func() string { return c.list(rs) })))
		}
	}
	if c.unreadables > 0 {
		notes = append(notes, fmt.Sprintf("[%s could not be read]", plural(c.unreadables, "file or folder")))
	}
	if len(notes) > 0 {
		out += "\n" + strings.Join(notes, "\n")
	}
	return out
}

// list is the whole listing of rs in files or count mode, one line each.
func (c *collector) list(rs []fileResult) string {
	var b strings.Builder
	for _, r := range rs {
		if c.mode == modeCount {
			fmt.Fprintf(&b, "%s:%d\n", r.path, r.count)
		} else {
			b.WriteString(r.path + "\n")
		}
	}
	return b.String()
}

// wholeList saves, once, the whole of a listing that was cut (tool.SaveWhole: the
// outputs folder the loop gives the call), and says where in the cut note.
type wholeList struct {
	ctx  context.Context
	done bool
	path string
	err  error
}

// note is "the whole list is saved in PATH (read_file or grep it), or " once the
// listing list() returns is saved; why it could not be, when it could not; "" where
// nothing keeps outputs (a call outside the loop).
func (w *wholeList) note(list func() string) string {
	if w == nil {
		return ""
	}
	if !w.done {
		w.done = true
		w.path, w.err = tool.SaveWhole(w.ctx, list())
	}
	switch {
	case errors.Is(w.err, tool.ErrNoOutputs):
		return ""
	case w.err != nil:
		return fmt.Sprintf("the whole list could not be saved (%s); ", tool.OneLine(w.err.Error(), 200))
	}
	return fmt.Sprintf("the whole list is saved in %s (read_file or grep it), or ", w.path)
}

// resultHeap is a max-heap of results by path.
type resultHeap []fileResult

func (h resultHeap) Len() int           { return len(h) }
func (h resultHeap) Less(i, j int) bool { return h[i].path > h[j].path }
func (h resultHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *resultHeap) Push(x any)        { *h = append(*h, x.(fileResult)) }
func (h *resultHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}
