package main

import (
	"fmt"
	"regexp"
	"runtime/debug"
	"strings"
)

// version is set by a build that names it (-ldflags "-X main.version=…"); else the
// version is read from the binary's build information.
var version = ""

// versionLine is what `gantry version` prints: the version, then the VCS revision,
// its time and whether the tree was modified, as `go install` and `go build` record
// them in the binary.
func versionLine() string {
	v := versionName()
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "gantry " + v
	}
	var rev, at string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			at = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	var parts []string
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		parts = append(parts, "revision "+rev)
	}
	if at != "" {
		parts = append(parts, at)
	}
	if modified {
		parts = append(parts, "modified")
	}
	parts = append(parts, info.GoVersion)
	return fmt.Sprintf("gantry %s (%s)", v, strings.Join(parts, ", "))
}

// pseudoVersion is a version Go made from a commit: v0.0.0-20261201095457-f39123119e50.
var pseudoVersion = regexp.MustCompile(`^v\d+\.\d+\.\d+-(?:0\.)?\d{14}-([0-9a-f]{12})(\+dirty)?$`)

// shortVersion is the version for a narrow place (the terminal UI's first line): a
// pseudo-version as dev and its commit.
func shortVersion() string {
	v := versionName()
	if m := pseudoVersion.FindStringSubmatch(v); m != nil {
		v = "dev " + m[1][:7]
		if m[2] != "" {
			v += "+"
		}
	}
	return v
}

// versionName is the version alone: the one the build set, else the main module's
// (a pseudo-version from the VCS for a build of a clone), else "dev".
func versionName() string {
	if version != "" {
		return version
	}
	if info, ok := debug.ReadBuildInfo(); ok && info.Main.Version != "" && info.Main.Version != "(devel)" {
		return info.Main.Version
	}
	return "dev"
}
