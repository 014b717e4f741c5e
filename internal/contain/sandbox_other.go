//go:build !linux

package contain

import "sync"

var (
	sandboxOnce sync.Once
	backend     Backend
	backendWhy  string
)

func probeSandbox() (Backend, string) { return BackendNone, "sandboxes need Linux" }

// landlockDenied: no Landlock here, nothing is denied.
func landlockDenied(sb *Sandbox) (denied, kept []string) { return nil, sb.Unreadable }
