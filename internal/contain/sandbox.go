package contain

// Sandbox says what a contained command may write and reach: the filesystem is
// read-only but for Writable (less ReadOnly, the denied and protected paths inside
// them), and with Network false the command has loopback only.
//
// Unreadable paths (those of read deny rules) are masked: an empty read-only file
// over a file, an empty read-only folder over a folder; a path that does not exist
// is left alone (nothing is created on the host). Hidden names programs denied whole
// (a name, looked up on PATH and in the usual folders, or a path): each of their files,
// and every other name of the same file (hard links, links to it), is masked the same
// way, so that there is nothing to run, read, copy, map with the loader or open
// through /proc/self/fd. Masks win over Writable and ReadOnly.
type Sandbox struct {
	Writable   []string `json:"writable"`
	ReadOnly   []string `json:"readonly,omitempty"`
	Unreadable []string `json:"unreadable,omitempty"`
	Hidden     []string `json:"hidden,omitempty"`
	Network    bool     `json:"network"`
}

// Backend is how sandboxes are made here.
type Backend int

// The backends, best first.
const (
	BackendNone       Backend = iota
	BackendBubblewrap         // bwrap: a mount namespace (and a network one)
	BackendLandlock           // the kernel's Landlock, in the helper, on writes (and TCP)
)

func (b Backend) String() string {
	switch b {
	case BackendBubblewrap:
		return "bubblewrap"
	case BackendLandlock:
		return "Landlock"
	}
	return "none"
}

// SandboxStatus says how sandboxes are made here and, for a fallback or none, why.
func SandboxStatus() (Backend, string) {
	sandboxOnce.Do(func() { backend, backendWhy = probeSandbox() })
	return backend, backendWhy
}
