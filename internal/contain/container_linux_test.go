package contain

import (
	"strings"
	"testing"
)

// TestContainerHint: bubblewrap's failure names the runtime's flags in a container
// (each way one is recognised), and nothing is added outside one.
func TestContainerHint(t *testing.T) {
	none := func(string) bool { return false }
	noenv := func(string) string { return "" }
	for _, c := range []struct {
		name   string
		exists func(string) bool
		getenv func(string) string
		in     bool
	}{
		{"host", none, noenv, false},
		{"podman's file", func(p string) bool { return p == "/run/.containerenv" }, noenv, true},
		{"docker's file", func(p string) bool { return p == "/.dockerenv" }, noenv, true},
		{"container variable", none, func(k string) string { return map[string]string{"container": "podman"}[k] }, true},
		{"Kubernetes pod", none, func(k string) string { return map[string]string{"KUBERNETES_SERVICE_HOST": "10.0.0.1"}[k] }, true},
	} {
		got := containerHintFor(c.exists, c.getenv)
		if !c.in {
			if got != "" {
				t.Errorf("%s: hint %q, want none", c.name, got)
			}
			continue
		}
		if !strings.Contains(got, "runs in a container") || !strings.Contains(got, "--security-opt unmask=/proc/*") {
			t.Errorf("%s: hint %q names neither the container nor podman's flag", c.name, got)
		}
	}
}
