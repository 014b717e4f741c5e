package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/checkpoint"
	"github.com/gantry-dev/gantry/internal/ui/termtext"
)

// rewindDialog is /rewind (and esc esc on an empty input): a prompt of the session to
// go back to, what to take back (files and conversation, conversation only, files
// only), and, when files change, the diff first and a confirmation.
type rewindDialog struct {
	cps     []app.Checkpoint
	stage   int // 0: which prompt, 1: what, 2: confirm the files
	pick    choice
	what    choice
	ok      choice
	n       int
	diff    []string // the files' diff, for stage 2
	outside []string
}

var rewindWhat = []string{"Files and conversation", "Conversation only", "Files only", "Cancel"}

func (m *Model) cmdRewind(string) tea.Cmd {
	if m.running {
		m.say("rewind between turns: wait until this one ends, or press esc")
		return nil
	}
	m.openRewind()
	return nil
}

func (m *Model) openRewind() {
	cps, err := m.app.Checkpoints(context.Background())
	if err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the checkpoints could not be read: "+err.Error()))
		return
	}
	if len(cps) == 0 {
		m.say("no checkpoint yet: no prompt of this session changed anything")
		return
	}
	d := &rewindDialog{cps: cps, what: choice{labels: rewindWhat}}
	for _, c := range cps {
		label := fmt.Sprintf("%s — %s", oneLine(c.Prompt, 60), changeLine(c.Changes))
		if at := termtext.When(c.At, time.Now()); at != "" {
			label = at + "  " + label
		}
		d.pick.labels = append(d.pick.labels, label)
	}
	d.pick.at = len(cps) - 1
	m.dialogs = append(m.dialogs, d)
	m.dialogsChanged()
}

func oneLine(s string, n int) string {
	s = strings.ReplaceAll(strings.TrimSpace(s), "\n", " ")
	if r := []rune(s); len(r) > n {
		s = string(r[:n-1]) + "…"
	}
	return s
}

// changeLine says what changed after a checkpoint: "3 files, +12 -4".
func changeLine(cs []checkpoint.Change) string {
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
			d.n = d.cps[d.pick.at].N
			d.stage = 1
			return false
		}
		d.pick.move(k)
	case 1:
		if s != "enter" {
			d.what.move(k)
			return false
		}
		switch d.what.at {
		case 1: // conversation only
			m.rewindConversation(d.n)
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
			m.rewindConversation(d.n)
		}
		return true
	}
	return false
}

func (m *Model) rewindConversation(n int) {
	if _, err := m.app.RewindConversation(context.Background(), n); err != nil {
		m.print(m.st.r(m.st.warn, "⚠ the conversation was not rewound: "+err.Error()))
	}
}

func (d *rewindDialog) paste(string) {}
func (d *rewindDialog) cancel()      {}

func (d *rewindDialog) view(m *Model) string {
	switch d.stage {
	case 0:
		return frame(m, "Rewind to before which prompt?", d.pick.lines(m, nil), "↑↓ choose · enter next · esc close")
	case 1:
		return frame(m, fmt.Sprintf("Rewind to before prompt %d: what?", d.n), d.what.lines(m, nil), "↑↓ choose · enter confirm · esc close")
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
