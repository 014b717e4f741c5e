package shell

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/contain"
)

// readOnlyPath finds the path of a "Read-only file system" error in the common shapes:
// `touch: cannot touch '/etc/x': Read-only file system`, `bash: /etc/x: Read-only file
// system`, `open /etc/x: read-only file system`.
var readOnlyPath = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)['‘"]?(/[^'’":\n]*)['’"]?: read-only file system`)
})

// deniedPath finds the path of a "Permission denied" error (Landlock refuses so).
var deniedPath = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`['‘"]?(/[^'’":\n]*)['’"]?: Permission denied`) })

// offline are the words of a connection the network namespace refused.
var offline = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)network is unreachable|could not resolve host|temporary failure in name resolution|name or service not known|no address associated with hostname|connection refused|dial tcp`)
})

// sandboxNote is the sentence that tells the model a command failed because of the
// sandbox, so that it does not read it as a bug in the code: the path it could not
// write, or the connection it could not make ("" when nothing points at the sandbox).
func sandboxNote(output string, sb *contain.Sandbox) string {
	if m := readOnlyPath().FindStringSubmatch(output); m != nil {
		return fmt.Sprintf("[sandbox: %s is read-only in the sandbox: commands may write only the project, /tmp and the folders of sandbox.writable (gantry's settings, .git and denied paths stay read-only)]", m[1])
	}
	if m := deniedPath().FindStringSubmatch(output); m != nil && !under(m[1], sb.Writable) {
		return fmt.Sprintf("[sandbox: writing %s was refused by the sandbox: commands may write only the project, /tmp and the folders of sandbox.writable]", m[1])
	}
	if !sb.Network && offline().MatchString(output) {
		return "[sandbox: the network is off (sandbox.network: false): only this machine's own loopback inside the sandbox is reachable]"
	}
	return ""
}

func under(p string, dirs []string) bool {
	p = filepath.Clean(p)
	for _, d := range dirs {
		if p == d || strings.HasPrefix(p, d+"/") {
			return true
		}
	}
	return false
}
