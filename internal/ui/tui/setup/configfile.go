package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"reflect"
	"regexp"
	"strings"

	"github.com/goccy/go-yaml"

	"github.com/gantry-dev/gantry/internal/config"
)

// freshHeader opens a config.yaml the setup creates.
const freshHeader = "# gantry's user configuration, begun by its first-run setup.\n"

// setting is one top-level key to set to a string value.
type setting struct{ key, value string }

// writeUserConfig sets provider and model in the config file at path: a new file when
// there is none, else the same file with those two top-level keys set or added and
// every other line (comments included) left as it was. The file is replaced
// atomically, keeping its mode; a symbolic link at path is followed.
func writeUserConfig(path, provider, model string) error {
	e, err := editUserConfig(path, provider, model)
	if err != nil {
		return err
	}
	return e.write()
}

// configEdit is a new content for a config file, ready to be written.
type configEdit struct {
	path string // the file, links followed
	data []byte
	perm fs.FileMode
}

func (e configEdit) write() error { return config.WriteFileAtomic(e.path, e.data, e.perm) }

// editUserConfig reads the config file at path and returns what writeUserConfig
// would write, writing nothing.
func editUserConfig(path, provider, model string) (configEdit, error) {
	e := configEdit{path: config.FollowLinks(path), perm: 0o644}
	data, err := os.ReadFile(e.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		data = []byte(freshHeader)
	case err != nil:
		return e, err
	default:
		if fi, err := os.Stat(e.path); err == nil {
			e.perm = fi.Mode().Perm()
		}
	}
	e.data, err = setTopLevel(data, []setting{{"provider", provider}, {"model", model}})
	if err != nil {
		return e, fmt.Errorf("cannot edit %s: %w; set provider: %s and model: %s in it by hand", e.path, err, provider, model)
	}
	return e, nil
}

// setTopLevel returns the YAML document data with the top-level keys of set given
// their values: the line of a key that is there is replaced (its trailing comment
// kept, its continuation lines dropped), a key that is not is added after the other
// keys of set, or at the end. The edit is line-based, so the rest of the file stays
// byte for byte; the result is decoded again and must differ from data only in
// those keys, or it is refused.
func setTopLevel(data []byte, set []setting) ([]byte, error) {
	before, err := topLevel(data)
	if err != nil {
		return nil, err
	}
	text := string(data)
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
		text = strings.ReplaceAll(text, "\r\n", "\n")
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if text == "" {
		lines = nil
	}
	var missing []string
	for _, s := range set {
		scalar, err := yamlScalar(s.value)
		if err != nil {
			return nil, err
		}
		i, end := findTopLevel(lines, s.key)
		if i < 0 {
			missing = append(missing, s.key+": "+scalar)
			continue
		}
		repl := []string{replaceValue(lines[i], scalar)}
		repl = append(repl, keptComments(lines[i], lines[i+1:end])...)
		lines = append(lines[:i], append(repl, lines[end:]...)...)
	}
	if len(missing) > 0 {
		// After the entries of set that are there, else at the end.
		after := len(lines)
		if i := lastEntryEnd(lines, set); i >= 0 {
			after = i
		}
		lines = append(lines[:after], append(missing, lines[after:]...)...)
	}
	out := []byte(strings.Join(lines, eol) + eol)

	got, err := topLevel(out)
	if err != nil {
		return nil, errors.New("the edited file would not be valid YAML")
	}
	for _, s := range set {
		if got[s.key] != s.value {
			return nil, fmt.Errorf("the edit would not set %s", s.key)
		}
		delete(got, s.key)
		delete(before, s.key)
	}
	if !reflect.DeepEqual(got, before) {
		return nil, errors.New("the edit would change other settings")
	}
	return out, nil
}

// topLevel decodes data as one YAML mapping (an empty file is an empty one).
func topLevel(data []byte) (m map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, errors.New("it cannot be decoded as YAML")
		}
	}()
	if err := yaml.Unmarshal(data, &m); err != nil {
		return nil, errors.New("it is not one valid YAML mapping")
	}
	if m == nil {
		m = map[string]any{}
	}
	return m, nil
}

// yamlScalar returns v written as a YAML scalar on one line: plain when it can be,
// quoted when it would otherwise be read as something else ("true", "1.0", "a: b").
func yamlScalar(v string) (string, error) {
	b, err := yaml.Marshal(v)
	if err != nil {
		return "", err
	}
	s := strings.TrimSuffix(string(b), "\n")
	if strings.Contains(s, "\n") {
		return "", fmt.Errorf("%q does not fit on one line", v)
	}
	return s, nil
}

// findTopLevel returns the line of the top-level key in lines and the end (exclusive)
// of its entry: its continuation lines, indented or starting with "-", and any blank
// lines among them, but not the blank lines after them nor a comment in column one.
// It returns -1 when the key is not there.
func findTopLevel(lines []string, key string) (start, end int) {
	re := regexp.MustCompile(`^(?:` + regexp.QuoteMeta(key) + `|"` + regexp.QuoteMeta(key) + `"|'` + regexp.QuoteMeta(key) + `')[ \t]*:(?:[ \t]|$)`)
	for i, l := range lines {
		if !re.MatchString(l) {
			continue
		}
		end = i + 1
		for j := i + 1; j < len(lines); j++ {
			l := lines[j]
			switch {
			case strings.TrimSpace(l) == "":
				continue // blank: part of the entry only if more of it follows
			case l[0] == ' ' || l[0] == '\t' || l == "-" || strings.HasPrefix(l, "- "):
				end = j + 1
				continue
			}
			break
		}
		return i, end
	}
	return -1, -1
}

// lastEntryEnd returns the end of the last entry of a key of set in lines, or -1.
func lastEntryEnd(lines []string, set []setting) int {
	last := -1
	for _, s := range set {
		if _, end := findTopLevel(lines, s.key); end > last {
			last = end
		}
	}
	return last
}

// keyRE splits a top-level key line into the key with its colon, and the rest.
var keyRE = regexp.MustCompile(`^((?:[^\s:"']+|"[^"]*"|'[^']*')[ \t]*:)(.*)$`)

// replaceValue returns the key line with its value replaced by scalar, keeping a
// trailing comment.
func replaceValue(line, scalar string) string {
	m := keyRE.FindStringSubmatch(line)
	if m == nil {
		return line // not reached: findTopLevel matched the line
	}
	out := m[1] + " " + scalar
	if c := trailingComment(m[2]); c != "" {
		out += " " + c
	}
	return out
}

// trailingComment returns the comment ("# …") after a one-line scalar value, or "".
func trailingComment(rest string) string {
	v := strings.TrimLeft(rest, " \t")
	if v == "" || v[0] == '#' {
		return v
	}
	i := 0
	switch v[0] {
	case '|', '>', '[', '{', '&', '*', '!':
		return "" // block scalars, flow collections, anchors, aliases and tags are not kept
	case '"':
		for i = 1; i < len(v) && v[i] != '"'; i++ {
			if v[i] == '\\' {
				i++
			}
		}
	case '\'':
		for i = 1; i < len(v); i++ {
			if v[i] == '\'' {
				if i+1 < len(v) && v[i+1] == '\'' {
					i++
					continue
				}
				break
			}
		}
	}
	for ; i < len(v); i++ {
		if v[i] == '#' && i > 0 && (v[i-1] == ' ' || v[i-1] == '\t') {
			return v[i:]
		}
	}
	return ""
}

// keptComments returns the comment lines among the continuation lines of a key
// whose value is not a block scalar (whose lines are all text), indented as they
// were.
func keptComments(keyLine string, cont []string) []string {
	m := keyRE.FindStringSubmatch(keyLine)
	if m != nil {
		if v := strings.TrimLeft(m[2], " \t"); v != "" && (v[0] == '|' || v[0] == '>') {
			return nil
		}
	}
	var out []string
	for _, l := range cont {
		if strings.HasPrefix(strings.TrimSpace(l), "#") {
			out = append(out, l)
		}
	}
	return out
}
