package tool

import "reflect"

// ArgsOf returns the Go type of a tool's arguments, the struct its schema is derived
// from, looking through wrappers that say what they wrap (Unwrap); nil for a tool
// whose schema comes from elsewhere (an MCP server's). Tests compare the schema the
// model reads with this source.
func ArgsOf(t Tool) reflect.Type {
	for t != nil {
		switch x := t.(type) {
		case interface{ ArgsType() reflect.Type }:
			return x.ArgsType()
		case interface{ Unwrap() Tool }:
			t = x.Unwrap()
		default:
			return nil
		}
	}
	return nil
}

// ArgsType is the struct of the tool's arguments (see ArgsOf).
func (t *defTool[T]) ArgsType() reflect.Type { return reflect.TypeFor[T]() }
