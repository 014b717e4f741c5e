package main

// The terminal UI in a small pane (60x24): dialogs keep their title on screen,
// tables cut no cell, the status line's context meter, the input's one prompt mark,
// long lines wrapped at words, and the person's own command shown whole.

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// scrollback is the pane with its history, wrapped lines joined as the terminal has them.
func (tt *tuiTerm) scrollback() string {
	tt.t.Helper()
	return tt.tmux("capture-pane", "-p", "-S", "-500", "-t", "g")
}

// A write whose diff is taller than the pane: the dialog's top border and title stay
// on screen, with its choices, and the rows it cannot show are said.
func TestTUIDialogFitsA24RowPane(t *testing.T) {
	var content strings.Builder
	for i := range 60 {
		fmt.Fprintf(&content, "line %d of a long new file\n", i)
	}
	in := fmt.Sprintf(`{"path":"long.txt","content":%q}`, content.String())
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("w1", "write_file", in)}}, say("Written."))
	defer srv.Close()
	tt := startTUI(t, 60, 24, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine("write a long file")
	s := tt.settled("Allow write_file?")
	rows := strings.Split(strings.TrimRight(s, "\n"), "\n")
	top := -1
	for i, r := range rows {
		if strings.HasPrefix(r, "┌") || strings.HasPrefix(r, "╭") {
			top = i
		}
	}
	if top < 0 || !strings.Contains(rows[top+1], "Allow write_file?") {
		t.Fatalf("the dialog's top border and title are not on screen:\n%s", tuiFrame(s))
	}
	for _, want := range []string{"1. Yes", "4. No", "not shown", "esc interrupt"} {
		if !strings.Contains(s, want) {
			t.Errorf("the dialog lacks %q:\n%s", want, tuiFrame(s))
		}
	}
	tt.keys("y")
	tt.waitFor("Written.")
}

// A compound command's permission dialog at 60x24, then the command's line in the
// scrollback wrapped at words, the meter, /cost and /help with no cell cut.
func TestTUIFitsSixtyColumns(t *testing.T) {
	cmd := `for f in alpha bravo charlie delta echo foxtrot golf hotel india juliet; do echo "$f is a word of the alphabet"; done && go version`
	in := fmt.Sprintf(`{"command":%q}`, cmd)
	srv := fakellm.New(fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Running it."), fakellm.ToolCall("b1", "bash", in)}}, say("Done."))
	defer srv.Close()
	tt := startTUI(t, 60, 24, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine("run the loop")
	s := tt.settled("Allow bash?")
	if !strings.Contains(s, "1. Yes") || !strings.Contains(s, "5. No, and refuse") {
		t.Errorf("the permission dialog lacks its choices:\n%s", tuiFrame(s))
	}
	tt.keys("y")
	s = tt.settled("Done.")

	// The call's line: wrapped at words, its rows after the first indented.
	back := tt.scrollback()
	for _, w := range []string{"alpha", "bravo", "charlie", "delta", "foxtrot", "juliet", "alphabet\";", "version"} {
		if !regexp.MustCompile(`(^|[\s"])` + regexp.QuoteMeta(w) + `($|[\s";])`).MatchString(back) {
			t.Errorf("the word %q of the command is cut across rows:\n%s", w, tuiFrame(back))
		}
	}
	// The meter: the share of the window, not a count of tokens.
	status := lastRow(s)
	if !regexp.MustCompile(`(<1|\d+)% context`).MatchString(status) || strings.Contains(status, "tokens") {
		t.Errorf("the status line has no context meter: %q", status)
	}

	tt.typeLine("/cost")
	s = tt.settled("total $")
	for _, want := range []string{"claude-sonnet-4-5", "responses 2", "cache write"} {
		if !strings.Contains(s, want) {
			t.Errorf("/cost at 60 columns lacks %q:\n%s", want, tuiFrame(s))
		}
	}
	if cost := s[strings.LastIndex(s, "› /cost"):]; strings.Contains(cost, "…") {
		t.Errorf("/cost at 60 columns cuts a cell:\n%s", tuiFrame(s))
	}

	tt.typeLine("/help")
	tt.settled("ctrl+c twice")
	back = tt.scrollback()
	help := back[strings.LastIndex(back, "› /help"):]
	for _, want := range []string{"/mode [default|accept-edits|plan|yolo]", "/output-style [name|default]", "/vibe [on|off|stop]", "permission mode"} {
		if !strings.Contains(help, want) {
			t.Errorf("/help at 60 columns lacks %q:\n%s", want, help)
		}
	}
	if strings.Contains(help, "…") {
		t.Errorf("/help at 60 columns cuts a cell:\n%s", help)
	}
	for _, l := range strings.Split(help, "\n") {
		if len([]rune(l)) >= 60 {
			t.Errorf("a /help line fills the 60 columns (the terminal wraps it): %q", l)
		}
	}
}

// The person's own command shows all its lines; a long prompt's wrapped rows have
// no prompt mark of their own.
func TestTUIShellAndInputAtSixtyColumns(t *testing.T) {
	srv := fakellm.New()
	defer srv.Close()
	tt := startTUI(t, 60, 24, tuiProjectDir(t), tuiEnv(t, srv))
	tt.waitFor(tuiStatusMark + "default")
	tt.typeLine(`!printf 'row-%s\n' 1 2 3 4 5 6 7 8`)
	s := tt.settled("row-8")
	for i := 1; i <= 8; i++ {
		if !strings.Contains(s, fmt.Sprintf("row-%d", i)) {
			t.Errorf("the command's line row-%d is not shown:\n%s", i, tuiFrame(s))
		}
	}
	if strings.Contains(s, "more line(s)") {
		t.Errorf("the person's own command is cut:\n%s", tuiFrame(s))
	}
	tt.tmux("send-keys", "-t", "g", "-l", "a long prompt that wraps over several rows of the input box at sixty columns, ending here")
	s = tt.settled("ending here")
	rows := strings.Split(strings.TrimRight(s, "\n"), "\n")
	var input []string
	for i := len(rows) - 2; i >= 0 && !strings.HasPrefix(rows[i], "  row-8"); i-- {
		input = append([]string{rows[i]}, input...)
		if strings.HasPrefix(rows[i], "› a long prompt") {
			break
		}
	}
	if len(input) < 2 || !strings.HasPrefix(input[0], "› a long prompt") {
		t.Fatalf("the wrapped input is not on screen:\n%s", tuiFrame(s))
	}
	for _, r := range input[1:] {
		if strings.HasPrefix(r, "›") {
			t.Errorf("a wrapped row of the input starts with ›:\n%s", tuiFrame(s))
		}
	}
}

// lastRow is a screen's last non-blank row (the status line).
func lastRow(s string) string {
	rows := strings.Split(strings.TrimRight(s, "\n "), "\n")
	return rows[len(rows)-1]
}
