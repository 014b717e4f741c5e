package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// rewindDialog is /rewind (and esc esc on an empty input): a prompt of the session to
// go back to, what to take back (files and conversation, conversation only, files
// only), and, when files change, the diff first and a confirmation.
type rewindDialog struct {
	points  []app.RewindPoint
	stage   int // 0: which prompt, 1: what, 2: confirm the files
	pick    choice
	what    choice
	ok      choice
	pt      app.RewindPoint // the point picked
	n       int             // its checkpoint (0: none)
	diff    []string        // the files' diff, for stage 2
	outside []string
}

var rewindWhat = []string{"Files and conversation", "Conversation only", "Files only", "Cancel"}

// rewindConversationOnly is what a point without a checkpoint offers.
var rewindConversationOnly = []string{"Conversation only (no checkpoint: no file changed after it)", "Cancel"}

func (m *Model) cmdRewind(string) tea.Cmd {
	if m.running {
		m.say("rewind between turns: wait until this one ends, or press esc")
		return nil
	}
	m.openRewind()
	return nil
}

// openRewind lists every prompt of the live conversation (not those an earlier
// rewind cut away), each with what changed after it, or that it has no checkpoint
// and can rewind the conversation only; and the restore points of files rewinds.
func (m *Model) openRewind() {
	points, err := m.app.RewindPoints(context.Background())
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the prompts could not be listed: "+err.Error()))
		return
	}
	if len(points) == 0 {
		m.say("nothing to rewind yet: the conversation has no prompt")
		return
	}
	d := &rewindDialog{points: points}
	for _, p := range points {
		change := "no checkpoint: conversation only"
		if p.Checkpoint != 0 {
			change = changeLine(p.Changes)
		}
		label := fmt.Sprintf("%s — %s", oneLine(p.Prompt, 60), change)
		if at := termtext.When(p.At, time.Now()); at != "" {
			label = at + "  " + label
		}
		d.pick.labels = append(d.pick.labels, label)
	}
	d.pick.at = len(points) - 1
	m.dialogs = append(m.dialogs, d)
	m.dialogsChanged()
}

// name is how the notices and titles name the point picked: "prompt N" by its
// checkpoint, else its prompt's words.
func (d *rewindDialog) name() string {
	if d.n != 0 {
		return fmt.Sprintf("prompt %d", d.n)
	}
	return "“" + oneLine(d.pt.Prompt, 40) + "”"
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// changeLine says what changed after a checkpoint: "3 files, +12 -4".
func changeLine(cs []app.FileChange) string {
	if len(cs) == 0 {
		return "no file changed after it"
	}
	add, del := 0, 0
	for _, c := range cs {
		if c.Added > 0 {
			add += c.Added
		}
		if c.Removed > 0 {
			del += c.Removed
		}
	}
	return fmt.Sprintf("%d file(s), +%d -%d", len(cs), add, del)
}

func (d *rewindDialog) key(m *Model, k tea.KeyPressMsg) bool {
	s := k.String()
	if s == "esc" {
		return true
	}
	switch d.stage {
	case 0:
		if s == "enter" {
			d.pt = d.points[d.pick.at]
			d.n = d.pt.Checkpoint
			d.what = choice{labels: rewindWhat}
			if d.n == 0 {
				d.what = choice{labels: rewindConversationOnly}
			}
			d.stage = 1
			return false
		}
		d.pick.move(k)
	case 1:
		if s != "enter" {
			d.what.move(k)
			return false
		}
		if d.n == 0 { // no checkpoint: the conversation only, or cancel
			if d.what.at == 0 {
				m.rewindConversation(d)
			}
			return true
		}
		switch d.what.at {
		case 1: // conversation only
			m.rewindConversation(d)
			return true
		case 3:
			return true
		}
		diff, outside, err := m.app.RewindPreview(context.Background(), d.n)
		if err != nil {
			m.print(m.st.r(m.st.warn, "⚠ "+err.Error()))
			return true
		}
		d.diff, d.outside = strings.Split(strings.TrimRight(diff, "\n"), "\n"), outside
		labels := []string{"Yes, restore the files", "No"}
		if len(outside) > 0 {
			labels[0] = "Yes, restore them, and overwrite what was changed outside gantry"
		}
		d.ok = choice{labels: labels}
		d.stage = 2
	case 2:
		switch s {
		case "y":
			d.ok.at = 0
		case "n":
			return true
		case "enter":
		default:
			d.ok.move(k)
			return false
		}
		if d.ok.at != 0 {
			return true
		}
		res, err := m.app.RewindFiles(context.Background(), d.n, true)
		switch {
		case errors.Is(err, app.ErrChangedOutside), err != nil:
			m.print(m.st.r(m.st.warn, "⚠ the files were not restored: "+err.Error()))
			return true
		}
		line := fmt.Sprintf("restored the files as they were before prompt %d (%s)", d.n, changeLine(res.Restored))
		if len(res.Skipped) > 0 {
			line += "; not kept, left as they are: " + strings.Join(res.Skipped, ", ")
		}
		m.print(m.st.r(m.st.dim, "✓ "+line))
		if d.what.at == 0 {
			m.rewindConversation(d)
		}
		return true
	}
	return false
}

func (m *Model) rewindConversation(d *rewindDialog) {
	if _, err := m.app.RewindConversationTo(context.Background(), d.pt.Keep, d.name()); err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the conversation was not rewound: "+err.Error()))
	}
}

func (d *rewindDialog) paste(string) {}
func (d *rewindDialog) cancel()      {}

func (d *rewindDialog) view(m *Model) string {
	switch d.stage {
	case 0:
		return frame(m, "Rewind to before which prompt?", d.pickLines(m), "↑↓ choose · enter next · esc close")
	case 1:
		return frame(m, fmt.Sprintf("Rewind to before %s: what?", d.name()), d.what.lines(m, nil), "↑↓ choose · enter confirm · esc close")
	}
	room := max(m.height-14, 6)
	body := []string{}
	if len(d.outside) > 0 {
		body = append(body, m.st.r(m.st.warn, "Changed outside gantry since its last turn: "+strings.Join(d.outside, ", ")), "")
	}
	lines := d.diff
	if len(lines) == 1 && lines[0] == "" {
		lines = []string{"(the files are as they were already)"}
	}
	if len(lines) > room {
		lines = append(lines[:room:room], m.st.r(m.st.dim, fmt.Sprintf("… %d more line(s)", len(d.diff)-room)))
	}
	body = append(body, lines...)
	body = append(body, "")
	body = append(body, d.ok.lines(m, nil)...)
	return frame(m, fmt.Sprintf("Restore the files as they were before prompt %d?", d.n), body, "y yes · n no · esc close")
}

// pickLines are the rows of the prompts around the cursor, as many as the pane has
// room for (a long conversation has more prompts than rows), each on one line.
func (d *rewindDialog) pickLines(m *Model) []string {
	all := d.pick.lines(m, nil)
	room := max(m.height-10, 3)
	from := 0
	if d.pick.at >= room {
		from = d.pick.at - room + 1
	}
	to := min(from+room, len(all))
	var out []string
	if from > 0 {
		out = append(out, m.st.r(m.st.dim, fmt.Sprintf("  ↑ %d earlier prompt(s)", from)))
	}
	for _, l := range all[from:to] {
		out = append(out, ansi.Truncate(l, dialogWidth(m), "…"))
	}
	if more := len(all) - to; more > 0 {
		out = append(out, m.st.r(m.st.dim, fmt.Sprintf("  ↓ %d later prompt(s)", more)))
	}
	return out
}
