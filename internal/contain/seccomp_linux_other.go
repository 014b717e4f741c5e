//go:build linux && !amd64 && !arm64

package contain

// filterArches is empty: the exec supervisor is not built for this processor, and
// Supervisor says so.
var filterArches []filterArch
