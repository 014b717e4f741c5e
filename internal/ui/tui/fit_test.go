package tui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// No cell of a table is cut at any width from 60 up, and no line is wider than the
// screen.
func TestTableCutsNoCellAtAnyWidth(t *testing.T) {
	rows := [][]string{
		{"/mode [default|accept-edits|plan|yolo]", "show or switch the permission mode"},
		{"/output-style [name|default]", "list the output styles, or switch to one (default: none)"},
		{"/help", "list the commands and keys"},
	}
	for width := 60; width <= 200; width += 7 {
		lines := table(rows, width, "  ")
		text := strings.Join(lines, "\n")
		for _, r := range rows {
			if !strings.Contains(text, r[0]) {
				t.Errorf("at width %d the cell %q is cut:\n%s", width, r[0], text)
			}
			for _, w := range strings.Fields(r[1]) {
				if !strings.Contains(text, w) {
					t.Errorf("at width %d the word %q of the last column is lost:\n%s", width, w, text)
				}
			}
		}
		for _, l := range lines {
			if ansi.StringWidth(l) >= width {
				t.Errorf("at width %d a line is %d wide: %q", width, ansi.StringWidth(l), l)
			}
		}
	}
}

// A cell wider than its column spills: the rest of its row goes on the next line,
// under its column.
func TestTableSpillsAWideCell(t *testing.T) {
	rows := [][]string{{"/mode [default|accept-edits|plan|yolo]", "show or switch the permission mode"}, {"/help", "list the commands"}}
	lines := table(rows, 60, "  ")
	want := []string{
		"  /mode [default|accept-edits|plan|yolo]",
		"                               show or switch the",
		"                               permission mode",
		"  /help                        list the commands",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("got:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
}

// Long lines wrap at word boundaries, their rows after the first under the hang.
func TestHangWrapAtWordsUnderTheIndent(t *testing.T) {
	l := "  " + strings.Repeat("alpha beta gamma ", 8)
	got := hangWrap(l, 40, indentOf(l))
	if len(got) < 3 {
		t.Fatalf("a %d-wide line in 40 columns gave %d rows", len(l), len(got))
	}
	for i, r := range got {
		if ansi.StringWidth(r) > 40 {
			t.Errorf("row %d is %d wide: %q", i, ansi.StringWidth(r), r)
		}
		if !strings.HasPrefix(r, "  ") || strings.HasPrefix(r, "   ") {
			t.Errorf("row %d does not start under the indent: %q", i, r)
		}
		for _, w := range strings.Fields(r) {
			if w != "alpha" && w != "beta" && w != "gamma" {
				t.Errorf("row %d cuts a word: %q", i, r)
			}
		}
	}
	if got := hangWrap("short", 40, 2); len(got) != 1 || got[0] != "short" {
		t.Errorf("a short line is changed: %q", got)
	}
}

// A dialog taller than the pane keeps its title, its first row and its choices.
func TestFitBodyKeepsTheChoices(t *testing.T) {
	m := &Model{st: newStyles(false)}
	var body []string
	for i := range 30 {
		body = append(body, fmt.Sprintf("diff line %d", i))
	}
	body = append(body, "", "› 1. Yes", "  2. No")
	got := fitBody(m, body, 10)
	if len(got) != 10 {
		t.Fatalf("fitted to %d rows, want 10:\n%s", len(got), strings.Join(got, "\n"))
	}
	if got[0] != "diff line 0" || !strings.Contains(got[1], "row(s) above not shown") || got[9] != "  2. No" || got[8] != "› 1. Yes" {
		t.Errorf("the fitted body:\n%s", strings.Join(got, "\n"))
	}
	// The cursor on a choice far from the end: the rows around it show.
	var list []string
	for i := range 30 {
		mark := "  "
		if i == 3 {
			mark = "› "
		}
		list = append(list, fmt.Sprintf("%s%d. prompt %d", mark, i+1, i+1))
	}
	got = fitBody(m, list, 8)
	if len(got) > 8 || !strings.Contains(strings.Join(got, "\n"), "› 4. prompt 4") {
		t.Errorf("the selected choice is not shown:\n%s", strings.Join(got, "\n"))
	}
}

// The meter is the last request's share of the window; usage elsewhere leaves it.
func TestContextMeterIsTheLastRequestsShare(t *testing.T) {
	var c contextMeter
	if s := c.status(200_000); s != "" {
		t.Errorf("before any response the meter says %q", s)
	}
	c.observe(face.TurnUsage{Usage: llm.Usage{InputTokens: 1000, CacheReadTokens: 20_000, CacheWriteTokens: 3000, OutputTokens: 5000}})
	c.observe(face.TurnUsage{Usage: llm.Usage{InputTokens: 90_000}, Elsewhere: true})
	if got, want := c.status(200_000), "12% context"; got != want {
		t.Errorf("meter %q, want %q", got, want)
	}
	if got, want := c.line(200_000), "last request: 24k of 200k tokens (12% of the window)"; got != want {
		t.Errorf("/context line %q, want %q", got, want)
	}
	if got := c.status(0); got != "" {
		t.Errorf("with an unknown window the meter says %q", got)
	}
}

// The input's first row has the prompt mark, the others none.
func TestInputPromptOnTheFirstRowOnly(t *testing.T) {
	d := newDriver(t, scripted.New(), 40, 24, false, nil)
	d.typeText("a long prompt that wraps over several rows of the input box")
	rows := strings.Split(d.m.input.View(), "\n")
	marks := 0
	for _, r := range rows {
		if strings.Contains(r, "›") {
			marks++
		}
	}
	if len(rows) < 2 || marks != 1 || !strings.HasPrefix(rows[0], "› ") {
		t.Errorf("the input's rows:\n%s", strings.Join(rows, "\n"))
	}
}

// A question taller than a 24-row pane scrolls inside its box: pgup shows the rows
// the fitted view left out, pgdown goes back to the choices, and a key the box
// does not scroll with still reaches the question.
func TestDialogBodyScrolls(t *testing.T) {
	m := &Model{st: newStyles(false), width: 60, height: 24}
	var ctx []string
	for i := range 40 {
		ctx = append(ctx, fmt.Sprintf("context line %02d.", i))
	}
	d := newQuestionDialog([]face.Question{{Question: "Which one?", Context: strings.Join(ctx, "\n"), Options: []face.Option{{Label: "First"}, {Label: "Second"}}}})
	m.dialogs = []dialog{d}
	first := ansi.Strip(d.view(m))
	if strings.Contains(first, "context line 05.") || !strings.Contains(first, "First") || m.dialogHidden == 0 {
		t.Fatalf("the fitted box (hidden %d):\n%s", m.dialogHidden, first)
	}
	if lines := strings.Count(first, "\n") + 1; lines > 24 {
		t.Fatalf("the box is %d rows", lines)
	}
	for range 5 {
		if !m.scrollDialog("pgup") {
			t.Fatal("pgup was not taken")
		}
	}
	up := ansi.Strip(d.view(m))
	if !strings.Contains(up, "context line 05.") || strings.Contains(up, "2. Second") || !strings.Contains(up, "row(s) below not shown") {
		t.Errorf("scrolled to the top:\n%s", up)
	}
	if lines := strings.Count(up, "\n") + 1; lines > 24 {
		t.Errorf("the scrolled box is %d rows", lines)
	}
	for range 5 {
		m.scrollDialog("pgdown")
	}
	if back := ansi.Strip(d.view(m)); back != first {
		t.Errorf("pgdown did not come back to the choices:\n%s", back)
	}
	if m.scrollDialog("down") {
		t.Error("an arrow key was taken by the scroll")
	}
}
