package version

import (
	"runtime/debug"
	"strings"
	"testing"
)

// Each kind of build gets one version string, and `gantry version`'s line starts
// with it.
func TestOneVersionPerBuild(t *testing.T) {
	vcs := func(rev, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: "2026-12-01T09:54:57Z"}, {Key: "vcs.modified", Value: modified}}
	}
	const rev = "f39123119e50aa0011223344556677889900aabb"
	for _, c := range []struct {
		name, set string
		info      *debug.BuildInfo
		want      string
	}{
		{"set by the build", "v1.2.3", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201095457-f39123119e50"}}, "v1.2.3"},
		{"tagged module", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.0"}}, "v0.4.0"},
		{"pseudo-version", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261201095457-f39123119e50"}}, "dev-f391231"},
		{"pseudo-version, modified", "", &debug.BuildInfo{Main: debug.Module{Version: "v0.4.1-0.20261201095457-f39123119e50+dirty"}, Settings: vcs(rev, "true")}, "dev-f391231+dirty"},
		{"devel with VCS", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "false")}, "dev-f391231"},
		{"devel, modified", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}, "dev-f391231+dirty"},
		{"nothing known", "", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "dev"},
		{"no build information", "", nil, "dev"},
	} {
		if got := of(c.set, c.info); got != c.want {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
		if c.info != nil {
			c.info.GoVersion = "go1.26.8"
		}
		if got := lineOf(c.set, c.info); !strings.HasPrefix(got, "gantry "+c.want+" (") && got != "gantry "+c.want {
			t.Errorf("%s: the line %q does not start with gantry %s", c.name, got, c.want)
		}
	}
	if got := lineOf("", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: vcs(rev, "true")}); got != "gantry dev-f391231+dirty (revision f39123119e50, 2026-12-01T09:54:57Z, modified, go1.26.8)" {
		t.Errorf("line: %q", got)
	}
	if ua := UserAgent(); !strings.HasPrefix(ua, "gantry/"+String()+" ") {
		t.Errorf("User-Agent %q does not carry the version %q", ua, String())
	}
}
