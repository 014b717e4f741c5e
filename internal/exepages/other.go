//go:build !linux || !(amd64 || arm64)

package exepages

import "errors"

// Registered reports whether the executable's pages are mapped one at a time: on
// Linux (amd64 and arm64) only.
func Registered() bool { return false }

// Err says why they are not.
func Err() error { return errors.New("pages are mapped one at a time on Linux only") }
