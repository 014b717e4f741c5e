package contain

import "os"

// containerHint is what to add to the reason bubblewrap failed when gantry runs in a
// container: there the failure is the runtime's doing (it refuses user namespaces, or
// covers parts of /proc so that the kernel refuses a new one), and the fix is a flag
// of the runtime's, not of gantry's. Empty outside a container.
func containerHint() string {
	return containerHintFor(func(p string) bool { _, err := os.Stat(p); return err == nil }, os.Getenv)
}

// containerHintFor is containerHint with the file system and environment it reads.
func containerHintFor(exists func(string) bool, getenv func(string) string) string {
	in := getenv("container") != "" || // podman, systemd-nspawn, LXC
		getenv("KUBERNETES_SERVICE_HOST") != "" || // every Kubernetes pod
		exists("/run/.containerenv") || exists("/.dockerenv")
	if !in {
		return ""
	}
	return "; gantry runs in a container, whose runtime must allow user namespaces and a new /proc " +
		"(podman: --security-opt unmask=/proc/*; Kubernetes: procMount: Unmasked; deploy/README.md)"
}
