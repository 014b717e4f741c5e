package frontmatter

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/goccy/go-yaml"
)

// Decode reads a front matter block (as Split gives it) into its keys: an empty block
// is no keys. An error is one line saying what is wrong and where, as a line of the
// file (the block starts on its second line); fields is then empty, never nil. The
// YAML library is not trusted with a panic: one is an error too.
func Decode(block string) (fields map[string]any, err error) {
	defer func() {
		if r := recover(); r != nil {
			fields, err = map[string]any{}, fmt.Errorf("the YAML reader failed: %v", r)
		}
	}()
	var v any
	if err := yaml.Unmarshal([]byte(block), &v); err != nil {
		return map[string]any{}, problem(err)
	}
	switch v := v.(type) {
	case nil:
		return map[string]any{}, nil
	case map[string]any:
		return v, nil
	}
	return map[string]any{}, fmt.Errorf("it is %s, not a mapping of keys such as name and description", Kind(v))
}

var position = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^\[(\d+):(\d+)\]\s*(.*)$`) })

// problem is the first line of a YAML error, its position a line of the file.
func problem(err error) error {
	first, _, _ := strings.Cut(strings.TrimSpace(yaml.FormatError(err, false, false)), "\n")
	if m := position().FindStringSubmatch(first); m != nil {
		if n, e := strconv.Atoi(m[1]); e == nil {
			return fmt.Errorf("line %d: %s", n+1, strings.TrimSpace(m[3]))
		}
	}
	return fmt.Errorf("%s", first)
}

// Kind names the kind of a decoded YAML value in a sentence ("a number", "a list").
func Kind(v any) string {
	switch v.(type) {
	case bool:
		return "true or false"
	case int, int64, uint64, float64, uint, int32:
		return "a number"
	case []any:
		return "a list"
	case map[string]any:
		return "a mapping"
	case string:
		return "a string"
	case nil:
		return "empty"
	}
	return fmt.Sprintf("a %T", v)
}
