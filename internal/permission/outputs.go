package permission

import (
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// SetOwnOutputs names the folder where the session saves the whole text of the results
// the bound cut (tool.Fit): each cut result's note tells the model to read its file
// there. A call that only reads files in that folder (read_file, grep) is allowed in
// every mode without a question, whatever path rules and ask rules say, and the file
// guard lets it read them: what they hold is the output of calls the gate already let
// run. A rule that denies the tool whole still holds; writes are judged as anywhere.
func (e *Engine) SetOwnOutputs(dir string) {
	e.mu.Lock()
	e.outputs = dir
	e.mu.Unlock()
}

// ownOutputs reports whether c reads files and every path it names is inside the
// session's outputs folder, symbolic links resolved. Called with e.mu held.
func (e *Engine) ownOutputs(c Call) bool {
	if e.outputs == "" || c.Files != tool.FilesRead || len(c.Paths) == 0 {
		return false
	}
	for _, p := range c.Paths {
		if !e.inOutputs(resolvePath(p)) {
			return false
		}
	}
	for _, r := range e.deny {
		if r.Pattern == nil && r.MatchesTool(c.Tool) {
			return false // the tool denied whole
		}
	}
	return true
}

// inOutputs reports whether abs, resolved, is inside the outputs folder.
func (e *Engine) inOutputs(abs string) bool {
	if e.outputs == "" {
		return false
	}
	dir := resolvePath(e.outputs)
	return strings.HasPrefix(abs, dir+"/")
}
