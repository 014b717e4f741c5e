package tool

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// numbered is n lines "line 1" … "line n", each ended.
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

var noteRE = regexp.MustCompile(`\[… (\d+) of (\d+) characters cut: lines (\d+)–(\d+) of (\d+) are not shown in full\. The whole output is saved in (\S+): read a range with read_file \{"path": "([^"]+)", "start": (\d+), "end": (\d+)\}, or search it with grep …\]`)

func TestFitSavesTheWholeTextAndNamesIt(t *testing.T) {
	out := NewOutputDir(filepath.Join(t.TempDir(), "outputs", "s1"), 0)
	text := numbered(20000)
	r := Fit(Result{Text: text}, 3000, out, "call_1")
	if n := utf8.RuneCountInString(r.Text); n > 3000 {
		t.Fatalf("the preview is %d characters, over the bound 3000", n)
	}
	m := noteRE.FindStringSubmatch(r.Text)
	if m == nil {
		t.Fatalf("no note naming the saved file in:\n%s", r.Text)
	}
	if m[6] != m[7] || filepath.Base(m[6]) != "call_1.txt" {
		t.Errorf("the note names %q and %q, want one file call_1.txt", m[6], m[7])
	}
	saved, err := os.ReadFile(m[6])
	if err != nil || string(saved) != text {
		t.Fatalf("the saved file is not the whole text (err %v, %d bytes of %d)", err, len(saved), len(text))
	}
	// The lines the note says are hidden are exactly the ones the preview lacks.
	first, _ := strconv.Atoi(m[3])
	last, _ := strconv.Atoi(m[4])
	head, tail, _ := strings.Cut(r.Text, "\n[…")
	tail = tail[strings.Index(tail, "]\n")+2:]
	if !strings.HasSuffix(head, fmt.Sprintf("line %d\n", first-1)) || !strings.HasPrefix(tail, fmt.Sprintf("line %d\n", last+1)) {
		t.Errorf("the note says lines %d–%d are hidden, but the head ends %q and the tail starts %q", first, last, head[len(head)-20:], tail[:20])
	}
	if m[8] != m[3] {
		t.Errorf("the range given starts at %s, not at the first hidden line %s", m[8], m[3])
	}
	cut, _ := strconv.Atoi(m[1])
	if shown := utf8.RuneCountInString(head + tail); cut != len(text)-shown {
		t.Errorf("the note says %d characters cut; %d of %d are shown", cut, shown, len(text))
	}
}

func TestFitLeavesShortTextAlone(t *testing.T) {
	out := NewOutputDir(filepath.Join(t.TempDir(), "o"), 0)
	r := Fit(Result{Text: "short", Preview: ShellPreview}, 30000, out, "c")
	if r.Text != "short" {
		t.Errorf("got %q", r.Text)
	}
	if _, err := os.Stat(out.Dir); !os.IsNotExist(err) {
		t.Errorf("a text within the bound made the outputs folder (%v)", err)
	}
}

func TestFitShellPreviewIsShortAndTailHeavy(t *testing.T) {
	out := NewOutputDir(filepath.Join(t.TempDir(), "o"), 0)
	text := numbered(50000) + "FAIL: the error at the end\n"
	r := Fit(Result{Text: text, Preview: ShellPreview}, 30000, out, "c")
	if n := utf8.RuneCountInString(r.Text); n > ShellPreview.Chars {
		t.Fatalf("the shell preview is %d characters, over %d", n, ShellPreview.Chars)
	}
	if !strings.HasSuffix(r.Text, "FAIL: the error at the end\n") || !strings.HasPrefix(r.Text, "line 1\n") {
		t.Errorf("the preview lost its head or its last line:\n%s", r.Text)
	}
	head, tail, _ := strings.Cut(r.Text, "\n[…")
	if len(tail) < 2*len(head) {
		t.Errorf("the tail (%d bytes) is not the larger part (head %d bytes)", len(tail), len(head))
	}
	t.Logf("shell preview of %d bytes: %d bytes, about %d tokens", len(text), len(r.Text), len(r.Text)/4)
}

// failing is an Outputs that cannot write.
type failing struct{}

func (failing) Save(string, string) (string, error) {
	return "", errors.New("the disk is full")
}

// A result's Room above the bound is its bound (read_skill's whole skill); below the
// bound it changes nothing.
func TestFitRoomWidensTheBound(t *testing.T) {
	text := numbered(1000) // 8,893 characters
	if r := Fit(Result{Text: text, Room: 9000}, 2000, nil, "c"); r.Text != text {
		t.Errorf("cut within its room: %d characters", utf8.RuneCountInString(r.Text))
	}
	if r := Fit(Result{Text: text, Room: 5000}, 2000, nil, "c"); utf8.RuneCountInString(r.Text) > 5000 || !strings.Contains(r.Text, "characters cut") {
		t.Errorf("not cut at its room: %d characters", utf8.RuneCountInString(r.Text))
	}
	if r := Fit(Result{Text: text, Room: 1000}, 2000, nil, "c"); utf8.RuneCountInString(r.Text) > 2000 || utf8.RuneCountInString(r.Text) < 1500 {
		t.Errorf("a smaller room changed the bound: %d characters", utf8.RuneCountInString(r.Text))
	}
}

func TestFitSaysWhenNothingWasSaved(t *testing.T) {
	text := strings.Repeat("x", 10000)
	r := Fit(Result{Text: text}, 2000, failing{}, "c")
	if !strings.Contains(r.Text, "the whole output was not saved (the disk is full)") || utf8.RuneCountInString(r.Text) > 2000 {
		t.Errorf("got %d characters:\n%s", utf8.RuneCountInString(r.Text), r.Text)
	}
	r = Fit(Result{Text: text}, 2000, nil, "c")
	if !strings.Contains(r.Text, "was not saved") || utf8.RuneCountInString(r.Text) > 2000 {
		t.Errorf("got %s", r.Text)
	}
}

func TestFitKeepsOneLongLine(t *testing.T) {
	out := NewOutputDir(filepath.Join(t.TempDir(), "o"), 0)
	text := strings.Repeat("é", 100000) // one line, two bytes a character
	r := Fit(Result{Text: text}, 1000, out, "c")
	if n := utf8.RuneCountInString(r.Text); n > 1000 || !strings.Contains(r.Text, "line 1 of 1 is not shown in full") || !strings.HasPrefix(r.Text, "éé") {
		t.Errorf("got %d characters:\n%s", n, r.Text)
	}
}

func TestOutputDirEvictsTheOldestFirst(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "o")
	out := NewOutputDir(dir, 2500)
	var paths []string
	for i := range 3 {
		p, err := out.Save("c", strings.Repeat(strconv.Itoa(i), 1000))
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	if paths[0] == paths[1] || paths[1] == paths[2] || paths[0] == paths[2] {
		t.Fatalf("a name seen again replaced a file: %v", paths)
	}
	if _, err := os.Stat(paths[0]); !os.IsNotExist(err) {
		t.Errorf("the oldest output was kept past the budget (%v)", err)
	}
	for _, p := range paths[1:] {
		if b, err := os.ReadFile(p); err != nil || len(b) != 1000 {
			t.Errorf("%s: %v", p, err)
		}
	}
	if _, err := out.Save("big", strings.Repeat("x", 3000)); err == nil {
		t.Error("an output larger than the whole budget was saved")
	}
}

func TestSafeName(t *testing.T) {
	for in, want := range map[string]string{"toolu_01A-b.c": "toolu_01A-b.c", "../x/y": "_x_y", "": "output", "a b": "a_b"} {
		if got := safeName(in); got != want {
			t.Errorf("safeName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestOutputDirBoundsAllSessionsTogether(t *testing.T) {
	root := t.TempDir()
	a := &OutputDir{Dir: filepath.Join(root, "a"), Total: 2500}
	b := &OutputDir{Dir: filepath.Join(root, "b"), Total: 2500}
	old, err := a.Save("c", strings.Repeat("a", 1000))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := b.Save("c", strings.Repeat("b", 1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); err != nil {
		t.Fatalf("an output was removed within the total: %v", err)
	}
	if _, err := b.Save("d", strings.Repeat("b", 1000)); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the oldest output of all sessions was kept past the total (%v)", err)
	}
}
