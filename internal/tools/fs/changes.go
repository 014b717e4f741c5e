package fs

import "github.com/gantry-dev/gantry/internal/tool"

// maxChangeText bounds the old and new text, together, of a file listed in
// Display.Changes; a larger file is left out.
const maxChangeText = 4 << 20

// fileChanges collects the Display.Changes of a call.
type fileChanges []tool.FileChange

// add lists the change of the text file at abs from old to new, unless either side is
// binary or the two are too large to hold. created says the file did not exist (old is
// empty), deleted that it was removed (new is empty).
func (cs *fileChanges) add(abs string, old, new []byte, created, deleted bool) {
	if len(old)+len(new) > maxChangeText || looksBinary(old, false) || looksBinary(new, false) {
		return
	}
	*cs = append(*cs, tool.FileChange{
		Path:    abs,
		Created: created,
		Deleted: deleted,
		Old:     string(old),
		New:     string(new),
	})
}
