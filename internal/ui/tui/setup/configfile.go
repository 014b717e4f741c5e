package setup

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"

	"github.com/gantry-dev/gantry/internal/config"
)

// freshHeader opens a config.yaml the setup creates.
const freshHeader = "# gantry's user configuration, begun by its first-run setup.\n"

// setting is one top-level key to set: to a string, or to a mapping (a
// map[string]any, written as a block).
type setting struct {
	key   string
	value any
	// leaf, for a mapping, is the one key path under key that differs from the file,
	// set to the string leafValue: when the file writes key as a block mapping, only
	// that line is edited (or the missing keys added), the rest of the block kept as
	// written.
	leaf      []string
	leafValue string
}

// choice is what the setup writes: the provider, its model, and the base URL of its
// server ("" for the provider's own API, which writes none).
type choice struct{ provider, model, baseURL string }

// writeUserConfig sets provider, model and, for a base URL, providers.<provider>.baseURL
// in the config file at path: a new file when there is none, else the same file with
// those top-level keys set or added and every other line (comments included) left as
// it was. A model key that is a mapping (name and timeouts) keeps its timeouts, and
// other providers' settings are kept. The file is replaced atomically, keeping its
// mode; a symbolic link at path is followed.
func writeUserConfig(path string, c choice) error {
	e, err := editUserConfig(path, c)
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
func editUserConfig(path string, c choice) (configEdit, error) {
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
	e.data, err = setChoice(data, c)
	if err != nil {
		byHand := fmt.Sprintf("provider: %s and model: %s", c.provider, c.model)
		if c.baseURL != "" {
			byHand = fmt.Sprintf("provider: %s, model: %s and providers.%s.baseURL: %s", c.provider, c.model, c.provider, c.baseURL)
		}
		return e, fmt.Errorf("cannot edit %s: %w; set %s in it by hand", e.path, err, byHand)
	}
	return e, nil
}

// setChoice returns data with the keys of c set (see writeUserConfig).
func setChoice(data []byte, c choice) ([]byte, error) {
	before, err := topLevel(data)
	if err != nil {
		return nil, err
	}
	model := setting{key: "model", value: c.model}
	if old, ok := before["model"].(map[string]any); ok {
		model = setting{"model", with(old, "name", c.model), []string{"name"}, c.model}
	}
	set := []setting{{key: "provider", value: c.provider}, model}
	if c.baseURL != "" {
		old, _ := before["providers"].(map[string]any)
		mine, _ := old[c.provider].(map[string]any)
		set = append(set, setting{"providers", with(old, c.provider, with(mine, "baseURL", c.baseURL)), []string{c.provider, "baseURL"}, c.baseURL})
	}
	return setTopLevel(data, set)
}

// with returns a copy of m (which may be nil) with key set to v.
func with(m map[string]any, key string, v any) map[string]any {
	out := make(map[string]any, len(m)+1)
	maps.Copy(out, m)
	out[key] = v
	return out
}

// setTopLevel returns the YAML document data with the top-level keys of set given
// their values: the entry of a key that is there is replaced (the trailing comment of
// its line and the comment lines among it kept), a key that is not is added after the
// other keys of set, or at the end. A string is written on the key's line, a mapping
// as a block under it. The edit is line-based, so the rest of the file stays byte for
// byte; the result is decoded again and must differ from data only in those keys, or
// it is refused.
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
		value, block, err := yamlValue(s.value)
		if err != nil {
			return nil, err
		}
		i, end := findTopLevel(lines, s.key)
		if i >= 0 && s.leaf != nil {
			if edited, ok := setLeaf(lines, i, end, s.leaf, s.leafValue); ok && decodesTo(edited, s.key, s.value) {
				lines = edited
				continue
			}
		}
		if i < 0 {
			missing = append(missing, append([]string{strings.TrimRight(s.key+": "+value, " ")}, block...)...)
			continue
		}
		repl := append([]string{replaceValue(lines[i], value)}, block...)
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
		if !reflect.DeepEqual(got[s.key], s.value) {
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

// decodesTo says whether lines decode with value at the top-level key.
func decodesTo(lines []string, key string, value any) bool {
	m, err := topLevel([]byte(strings.Join(lines, "\n") + "\n"))
	return err == nil && reflect.DeepEqual(m[key], value)
}

// setLeaf returns lines with the key path under the top-level entry lines[i:end],
// a block mapping, set to the string v: the line of its last key has its value
// replaced, or the keys missing are added at the end of their block. It says false
// when the entry is not written so (its value on the key's line, a block where a
// scalar is, an indentation it cannot follow); the caller checks the result decodes.
func setLeaf(lines []string, i, end int, path []string, v string) ([]string, bool) {
	if m := keyRE().FindStringSubmatch(lines[i]); m == nil || trailingComment(m[2]) != strings.TrimLeft(m[2], " \t") {
		return nil, false // a value on the key's line
	}
	scalar, err := yamlScalar(v)
	if err != nil {
		return nil, false
	}
	return setIn(lines, i+1, end, 0, path, scalar)
}

// setIn sets path to scalar in the block mapping of lines[start:end], whose parent
// key is indented parent columns.
func setIn(lines []string, start, end, parent int, path []string, scalar string) ([]string, bool) {
	indent := -1
	for j := start; j < end; j++ {
		if t := strings.TrimSpace(lines[j]); t != "" && t[0] != '#' {
			indent = indentOf(lines[j])
			break
		}
	}
	if indent < 0 {
		indent = parent + 2
	}
	if indent <= parent {
		return nil, false
	}
	key := regexp.QuoteMeta(path[0])
	re := regexp.MustCompile(`^ {` + fmt.Sprint(indent) + `}(?:` + key + `|"` + key + `"|'` + key + `')[ \t]*:(?:[ \t]|$)`)
	for j := start; j < end; j++ {
		if !re.MatchString(lines[j]) {
			continue
		}
		last := j + 1 // the end of its own block: the lines indented deeper
		for k := j + 1; k < end; k++ {
			if strings.TrimSpace(lines[k]) == "" {
				continue
			}
			if indentOf(lines[k]) <= indent {
				break
			}
			last = k + 1
		}
		if len(path) > 1 {
			return setIn(lines, j+1, last, indent, path[1:], scalar)
		}
		if last > j+1 {
			return nil, false // a block where a scalar goes
		}
		out := slices.Clone(lines)
		out[j] = lines[j][:indent] + replaceValue(lines[j][indent:], scalar)
		return out, true
	}
	at := start // after the block's last line that is not blank
	for j := start; j < end; j++ {
		if strings.TrimSpace(lines[j]) != "" {
			at = j + 1
		}
	}
	var add []string
	for d, k := range path {
		l := strings.Repeat(" ", indent+2*d) + k + ":"
		if d == len(path)-1 {
			l += " " + scalar
		}
		add = append(add, l)
	}
	return slices.Insert(slices.Clone(lines), at, add...), true
}

// indentOf counts the spaces that begin l.
func indentOf(l string) int { return len(l) - len(strings.TrimLeft(l, " ")) }

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

// yamlValue returns v as it is written after its key: a string as a scalar on the
// key's line (block nil), a mapping as nothing on the key's line and its block, indented
// two spaces, on the lines after.
func yamlValue(v any) (string, []string, error) {
	switch v := v.(type) {
	case string:
		s, err := yamlScalar(v)
		return s, nil, err
	case map[string]any:
		b, err := yaml.Marshal(v)
		if err != nil {
			return "", nil, err
		}
		var block []string
		for _, l := range strings.Split(strings.TrimSuffix(string(b), "\n"), "\n") {
			block = append(block, "  "+l)
		}
		return "", block, nil
	}
	return "", nil, fmt.Errorf("%v cannot be written", v)
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
var keyRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^((?:[^\s:"']+|"[^"]*"|'[^']*')[ \t]*:)(.*)$`) })

// replaceValue returns the key line with its value replaced by scalar ("" for a
// block that follows), keeping a trailing comment.
func replaceValue(line, scalar string) string {
	m := keyRE().FindStringSubmatch(line)
	if m == nil {
		return line // not reached: findTopLevel matched the line
	}
	out := m[1]
	if scalar != "" {
		out += " " + scalar
	}
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
	m := keyRE().FindStringSubmatch(keyLine)
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
