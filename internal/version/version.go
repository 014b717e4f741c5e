// Package version is gantry's version: one string, the same wherever it is shown or
// sent (gantry version, --version, doctor's first line, the terminal UI's first
// line, ACP's agentInfo, MCP's serverInfo and clientInfo, the web tools' User-Agent).
package version

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
	"sync"
)

// version is set by a build that names it:
// -ldflags "-X github.com/gantry-dev/gantry/internal/version.version=v1.2.3".
var version = ""

// pseudoVersion is a version Go made from a commit: v0.0.0-20261201095457-f39123119e50,
// with +dirty when the tree was modified.
var pseudoVersion = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:0\.)?\d{14}-([0-9a-f]{12})(\+dirty)?$`)
})

// String is gantry's version: the one the build set, else the main module's tagged
// version (go install …@v1.2.3), else a build of a commit as dev-COMMIT (its first
// seven hex digits, +dirty when the tree was modified), else "dev".
func String() string {
	info, _ := debug.ReadBuildInfo()
	return of(version, info)
}

// of is String for the version a build set and the binary's build information.
func of(set string, info *debug.BuildInfo) string {
	if set != "" {
		return set
	}
	if info == nil {
		return "dev"
	}
	if v := info.Main.Version; v != "" && v != "(devel)" {
		m := pseudoVersion().FindStringSubmatch(v)
		if m == nil {
			return v
		}
		return "dev-" + m[1][:7] + m[2]
	}
	s := settings(info)
	if rev := s["vcs.revision"]; len(rev) >= 7 {
		v := "dev-" + rev[:7]
		if s["vcs.modified"] == "true" {
			v += "+dirty"
		}
		return v
	}
	return "dev"
}

// Line is what `gantry version` prints: "gantry VERSION", then the VCS revision, its
// time and whether the tree was modified, as go build records them, and the Go
// version.
func Line() string {
	info, _ := debug.ReadBuildInfo()
	return lineOf(version, info)
}

func lineOf(set string, info *debug.BuildInfo) string {
	v := of(set, info)
	if info == nil {
		return "gantry " + v
	}
	s := settings(info)
	var parts []string
	if rev := s["vcs.revision"]; rev != "" {
		parts = append(parts, "revision "+rev[:min(12, len(rev))])
	}
	if at := s["vcs.time"]; at != "" {
		parts = append(parts, at)
	}
	if s["vcs.modified"] == "true" {
		parts = append(parts, "modified")
	}
	parts = append(parts, info.GoVersion)
	return fmt.Sprintf("gantry %s (%s)", v, strings.Join(parts, ", "))
}

// UserAgent is the User-Agent of gantry's own HTTP requests (the web tools).
func UserAgent() string {
	return "gantry/" + String() + " (+https://github.com/gantry-dev/gantry)"
}

func settings(info *debug.BuildInfo) map[string]string {
	m := map[string]string{}
	for _, s := range info.Settings {
		m[s.Key] = s.Value
	}
	return m
}
