package contain

// Sandbox says what a contained command may write and reach: the filesystem is
// read-only but for Writable (less ReadOnly, the denied and protected paths inside
// them), and with Network false the command has loopback only.
type Sandbox struct {
	Writable []string `json:"writable"`
	ReadOnly []string `json:"readonly,omitempty"`
	Network  bool     `json:"network"`
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
