package hook

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxEnvFile bounds what is read of a CLAUDE_ENV_FILE.
const maxEnvFile = 64 << 10

// envFile prepares the CLAUDE_ENV_FILE of the i-th SessionStart hook of a run: an empty
// file of mode 0600 in dir, which the hook may write exports into.
func envFile(dir string, i int) (string, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", err
	}
	p := filepath.Join(dir, fmt.Sprintf("sessionstart-hook-%d.sh", i))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		return "", err
	}
	return p, f.Close()
}

// readEnvFile returns what a hook wrote to its CLAUDE_ENV_FILE, maxEnvFile bytes at most.
func readEnvFile(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxEnvFile))
	return string(b), err
}

// parseEnv reads the exports of a CLAUDE_ENV_FILE without running it: lines
// `export NAME=value` or `NAME=value` (several assignments on a line too), blank
// lines and # comments. A value is a shell word made of plain characters,
// 'single-quoted' text (taken as it is), "double-quoted" text and $NAME or ${NAME},
// which expand to what get says (an earlier assignment, else gantry's environment);
// a backslash takes the next character as it is. A line with anything else — command
// substitution, ${NAME:-…}, ;, &, |, <, >, parentheses — is not taken: its number is
// in bad. set records each assignment, in order.
func parseEnv(text string, get func(string) string, set func(name, value string)) (bad []int) {
	for n, line := range strings.Split(text, "\n") {
		if !parseEnvLine(line, get, set) {
			bad = append(bad, n+1)
		}
	}
	return bad
}

// parseEnvLine reads one line (see parseEnv); false: the line is not taken (nothing of
// it is set).
func parseEnvLine(line string, get func(string) string, set func(name, value string)) bool {
	type assign struct{ name, value string }
	var out []assign
	local := map[string]string{}
	lookup := func(name string) string {
		if v, ok := local[name]; ok {
			return v
		}
		return get(name)
	}
	s := strings.TrimSpace(line)
	exported := false
	if rest, ok := strings.CutPrefix(s, "export"); ok && (rest == "" || rest[0] == ' ' || rest[0] == '\t') {
		s, exported = rest, true
	}
	for {
		s = strings.TrimLeft(s, " \t")
		if s == "" || s[0] == '#' {
			break
		}
		name := envName(s)
		if name == "" {
			return false
		}
		s = s[len(name):]
		if exported && (s == "" || s[0] == ' ' || s[0] == '\t') {
			continue // export NAME: nothing to set
		}
		if s[0] != '=' {
			return false
		}
		value, rest, ok := envWord(s[1:], lookup)
		if !ok {
			return false
		}
		local[name] = value
		out = append(out, assign{name, value})
		s = rest
	}
	for _, a := range out {
		set(a.name, a.value)
	}
	return true
}

// envName is the variable name s starts with ([A-Za-z_][A-Za-z0-9_]*), or "".
func envName(s string) string {
	i := 0
	for i < len(s) && (s[i] == '_' || 'a' <= s[i] && s[i] <= 'z' || 'A' <= s[i] && s[i] <= 'Z' || i > 0 && '0' <= s[i] && s[i] <= '9') {
		i++
	}
	return s[:i]
}

// envWord reads the shell word s starts with, up to unquoted white space, and returns
// its value and what follows it; ok is false for what parseEnv does not take.
func envWord(s string, lookup func(string) string) (value, rest string, ok bool) {
	var b strings.Builder
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == ' ' || c == '\t':
			return b.String(), s[i:], true
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return "", "", false
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 2
		case c == '"':
			i++
			for {
				if i >= len(s) {
					return "", "", false
				}
				c := s[i]
				if c == '"' {
					i++
					break
				}
				switch {
				case c == '`':
					return "", "", false
				case c == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\", s[i+1]) >= 0:
					b.WriteByte(s[i+1])
					i += 2
				case c == '$':
					n, ok := expand(s[i:], lookup, &b)
					if !ok {
						return "", "", false
					}
					i += n
				default:
					b.WriteByte(c)
					i++
				}
			}
		case c == '\\':
			if i+1 >= len(s) {
				return "", "", false
			}
			b.WriteByte(s[i+1])
			i += 2
		case c == '$':
			n, ok := expand(s[i:], lookup, &b)
			if !ok {
				return "", "", false
			}
			i += n
		case strings.IndexByte("`;&|<>()", c) >= 0:
			return "", "", false
		default:
			b.WriteByte(c)
			i++
		}
	}
	return b.String(), "", true
}

// expand writes the value of the $NAME or ${NAME} s starts with and returns how many
// bytes it took. A $ that starts no name is itself; $(, ${…} with more than a name,
// and special parameters ($1, $?, …) are not taken.
func expand(s string, lookup func(string) string, b *strings.Builder) (int, bool) {
	if len(s) < 2 {
		b.WriteByte('$')
		return 1, true
	}
	if s[1] == '{' {
		end := strings.IndexByte(s, '}')
		if end < 0 {
			return 0, false
		}
		name := s[2:end]
		if name == "" || envName(name) != name {
			return 0, false
		}
		b.WriteString(lookup(name))
		return end + 1, true
	}
	if name := envName(s[1:]); name != "" {
		b.WriteString(lookup(name))
		return 1 + len(name), true
	}
	if s[1] == ' ' || s[1] == '\t' || s[1] == '"' || s[1] == '/' || s[1] == ':' {
		b.WriteByte('$')
		return 1, true
	}
	return 0, false
}
