package config

import (
	"github.com/goccy/go-yaml"
	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/token"
)

// stringList is a YAML value that may be one string or a list of strings.
type stringList []string

// UnmarshalYAML implements yaml.NodeUnmarshaler.
func (s *stringList) UnmarshalYAML(node ast.Node) error {
	switch n := unwrap(node).(type) {
	case *ast.StringNode:
		*s = stringList{n.Value}
		return nil
	case *ast.NullNode:
		*s = stringList{}
		return nil
	case *ast.SequenceNode:
		list := make(stringList, 0, len(n.Values))
		for _, v := range n.Values {
			str, ok := unwrap(v).(*ast.StringNode)
			if !ok {
				return &wantError{tok: v.GetToken(), want: "a string"}
			}
			list = append(list, str.Value)
		}
		*s = list
		return nil
	}
	return &wantError{tok: node.GetToken(), want: "a string or a list of strings"}
}

// UnmarshalYAML reads the model key: a string is the model's name, a mapping holds
// the name and the timeouts.
func (m *modelLayer) UnmarshalYAML(node ast.Node) error {
	switch n := unwrap(node).(type) {
	case *ast.StringNode:
		*m = modelLayer{Name: &n.Value}
		return nil
	case *ast.NullNode:
		*m = modelLayer{}
		return nil
	case *ast.MappingNode:
		type plain modelLayer // without this method
		var p plain
		if err := yaml.NodeToValue(node, &p, yaml.Strict()); err != nil {
			return err
		}
		*m = modelLayer(p)
		return nil
	}
	return &wantError{tok: node.GetToken(), want: modelWant}
}

const modelWant = "a string (the model's name) or a mapping (name, streamIdleTimeout, firstByteTimeout, pingTimeout, responseTimeout, maxRetryAfter)"

// unwrap returns the value under anchors and tags.
func unwrap(n ast.Node) ast.Node {
	for {
		switch t := n.(type) {
		case *ast.AnchorNode:
			n = t.Value
		case *ast.TagNode:
			n = t.Value
		default:
			return n
		}
	}
}

// wantError is a value of the wrong kind found by our own decoding.
type wantError struct {
	tok  *token.Token
	want string
}

func (e *wantError) Error() string { return "must be " + e.want }
