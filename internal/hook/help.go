package hook

import (
	_ "embed"
	"strings"
)

//go:embed help.md
var help string

// Help returns the hook protocol, for register_hook's help action.
func Help() string { return strings.TrimSpace(help) }
