//go:build !cgo

package syntax

import "context"

// Available says whether this build can parse: not without cgo.
const Available = false

// grammar is empty without cgo: there are no parser tables to load.
type grammar struct{}

func (l *Language) load() {}

// Parse says that this build cannot parse.
func Parse(ctx context.Context, l *Language, src []byte) (*Tree, error) { return nil, ErrUnavailable }

// ParseKind says that this build cannot parse.
func ParseKind(ctx context.Context, l *Language, src []byte, kind uint16) (*Tree, error) {
	return nil, ErrUnavailable
}
