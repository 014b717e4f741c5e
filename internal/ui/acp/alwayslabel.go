package acp

import (
	"strings"

	"github.com/gantry-dev/gantry/internal/permission"
)

// alwaysLabel names what an "always" answer allows, for an option's label that the
// editor shows as plain text: the grant's label ("go test and go vet commands")
// without its Markdown quotes, and never its rules' regular expressions.
func alwaysLabel(g permission.Grant) string {
	if g.Label == "" {
		return strings.Join(g.Rules, ", ")
	}
	return strings.ReplaceAll(g.Label, "`", "")
}
