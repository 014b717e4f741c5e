//go:build linux && !amd64 && !arm64

package nsinit

// sysSeccomp is not used: the exec supervisor is not built for this processor.
const sysSeccomp = 0

// Arches is empty: the exec supervisor is not built for this processor, and
// contain.Supervisor says so.
var Arches []Arch
