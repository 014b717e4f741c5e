package contain

import (
	"fmt"
	"strings"
)

// Lost says, in sentences, which of sb's guarantees do not hold here: none with
// bubblewrap; with Landlock only, the read-only and masked paths inside writable
// folders; with no sandbox at all, every one (the parser and the exec supervisor are
// then all that stand in the way). For gantry doctor and a notice at start.
func Lost(sb *Sandbox) []string {
	if sb == nil {
		return nil
	}
	b, why := SandboxStatus()
	var out []string
	switch b {
	case BackendBubblewrap:
		return nil
	case BackendLandlock:
		if len(sb.ReadOnly) > 0 {
			out = append(out, "With Landlock only, the paths kept read-only inside writable folders (gantry's settings, .git, write deny rules' folders) stay writable to commands.")
		}
		if _, kept := landlockDenied(sb); len(kept) > 0 {
			out = append(out, fmt.Sprintf("With Landlock only, the read-denied or hidden paths inside writable folders (%s) stay readable to commands: Landlock cannot take a path out of a writable folder's grants.", strings.Join(kept, ", ")))
		}
		return out
	}
	out = append(out, "No sandbox can be made here ("+why+"): commands can write wherever gantry can, and the write deny rules hold for the file tools and the shell parser only.")
	if len(sb.Unreadable) > 0 {
		out = append(out, fmt.Sprintf("The files of read deny rules (%s) can be read by any program a command runs.", strings.Join(sb.Unreadable, ", ")))
	}
	if len(sb.Hidden) > 0 {
		out = append(out, fmt.Sprintf("The programs denied whole (%s) are stopped by the exec supervisor alone: a changed copy of one, or its bytes run from memory, is not.", strings.Join(sb.Hidden, ", ")))
	}
	if !sb.Network {
		out = append(out, "Commands can reach the network, whatever sandbox.network says.")
	}
	return out
}
