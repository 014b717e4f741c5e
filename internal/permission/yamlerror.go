package permission

import (
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// syntaxError is a YAML parse error as one line, "path:line: message" (":line:
// message" for an empty path, which the caller prefixes): the parser's
// own text quotes the file's lines under it, which a sentence ending in "." then
// left as a lone line.
func syntaxError(path string, err error) error {
	var ye yaml.Error
	if errors.As(err, &ye) {
		msg := strings.TrimSuffix(strings.TrimSpace(ye.GetMessage()), ".")
		if tk := ye.GetToken(); tk != nil && tk.Position != nil {
			return fmt.Errorf("%s:%d: %s", path, tk.Position.Line, msg)
		}
		return fmt.Errorf("%s: %s", path, msg)
	}
	first, _, _ := strings.Cut(strings.TrimSpace(err.Error()), "\n")
	return fmt.Errorf("%s: %s", path, first)
}
