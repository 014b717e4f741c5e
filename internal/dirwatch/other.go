//go:build !linux

package dirwatch

import "errors"

// openQueue: only Linux has a journal; elsewhere callers check their files themselves.
func openQueue() (queue, error) { return nil, errors.New("no change journal on this system") }
