package debugtool

import (
	"fmt"
	"strings"

	"github.com/gantry-dev/gantry/internal/dap"
	"github.com/gantry-dev/gantry/internal/tool"
)

// maxRefusal bounds an adapter's whole refusal (a traceback) in a result.
const maxRefusal = 2000

// maxMessages bounds the adapter's own messages in a result.
const maxMessages = 2000

// refusal is an adapter's refusal of a request as a sentence: its message's last
// line, where an exception's type and words are (debugpy's "NameError: name 'x' is
// not defined" ends a traceback); the whole message follows when it has more lines.
func refusal(adapter, what, message string) string {
	message = strings.TrimSpace(message)
	lines := strings.Split(message, "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	text := fmt.Sprintf("The %s adapter refused %s: %s.", adapter, what, strings.TrimSuffix(tool.OneLine(last, 400), "."))
	if len(lines) > 1 {
		text += "\nIts whole message:\n" + tool.Bound(message, maxRefusal)
	}
	return text
}

// exitText says how the program ended, a signal named: the text and the note.
func exitText(sn dap.Snapshot) (string, string) {
	code := 0
	if sn.ExitCode != nil {
		code = *sn.ExitCode
	}
	if sn.Signal != 0 {
		name := dap.SignalName(sn.Signal)
		if name == "" {
			name = "a signal"
		}
		return fmt.Sprintf("The program was killed by %s (signal %d; the adapter reported exit code %d).", name, sn.Signal, code),
			fmt.Sprintf("killed (%s)", name)
	}
	return fmt.Sprintf("The program exited with code %d.", code), fmt.Sprintf("exited (%d)", code)
}

// messagesSection is the adapter's own messages since the last call, as a section
// apart from the program's output ("" when there are none).
func messagesSection(s *dap.Session) string {
	m := strings.TrimSpace(s.Messages())
	if m == "" {
		return ""
	}
	return fmt.Sprintf("\nThe %s adapter's own messages (not the program's output):\n%s", s.Spec.ID, tool.Bound(m, maxMessages))
}
