package fs

import (
	"fmt"

	"github.com/gantry-dev/gantry/internal/tool"
)

// refused is the result of a call the file guard stopped before it read or wrote
// anything: one sentence naming the file and the rule.
func refused(name string, err error) tool.Result {
	return tool.Fail(fmt.Sprintf("%s was refused and nothing was read or written: %s.", name, err))
}
