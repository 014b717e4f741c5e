package permission

import "strings"

// SplitCommand splits a shell command at its top-level separators (;, &&, ||, |, &,
// newlines), outside quotes. It is a conservative view for rule matching; the full
// parser of the rules engine replaces it.
func SplitCommand(cmd string) []string {
	var parts []string
	var cur strings.Builder
	var quote byte
	flush := func() {
		if s := strings.TrimSpace(cur.String()); s != "" {
			parts = append(parts, s)
		}
		cur.Reset()
	}
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == '\\' && quote == '"' && i+1 < len(cmd) {
				cur.WriteByte(c)
				i++
				cur.WriteByte(cmd[i])
				continue
			}
			if c == quote {
				quote = 0
			}
			cur.WriteByte(c)
		case c == '\\' && i+1 < len(cmd):
			cur.WriteByte(c)
			i++
			cur.WriteByte(cmd[i])
		case c == '\'' || c == '"':
			quote = c
			cur.WriteByte(c)
		case c == '&' && isRedirect(cmd, i):
			cur.WriteByte(c)
		case c == ';' || c == '\n' || c == '|' || c == '&':
			flush()
			if i+1 < len(cmd) && (cmd[i+1] == '|' || cmd[i+1] == '&') && cmd[i+1] == c {
				i++
			}
		default:
			cur.WriteByte(c)
		}
	}
	flush()
	if len(parts) == 0 {
		return []string{strings.TrimSpace(cmd)}
	}
	return parts
}

// isRedirect reports whether the & at i belongs to a redirection (2>&1, &>file, <&3).
func isRedirect(cmd string, i int) bool {
	if i > 0 && (cmd[i-1] == '>' || cmd[i-1] == '<') {
		return true
	}
	return i+1 < len(cmd) && cmd[i+1] == '>'
}
