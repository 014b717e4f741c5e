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

// Parser cannot parse in this build.
type Parser struct{}

// NewParser says that this build cannot parse.
func NewParser(l *Language) (*Parser, error) { return nil, ErrUnavailable }

// Close does nothing.
func (p *Parser) Close() {}

// Parse says that this build cannot parse.
func (p *Parser) Parse(ctx context.Context, src []byte) (*Tree, error) { return nil, ErrUnavailable }

// ParseKind says that this build cannot parse.
func (p *Parser) ParseKind(ctx context.Context, src []byte, kind uint16) (*Tree, error) {
	return nil, ErrUnavailable
}
