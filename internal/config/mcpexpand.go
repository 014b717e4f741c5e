package config

import (
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// mcpVar is ${NAME} or ${NAME:-default}, as Claude Code reads them.
var mcpVar = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\$\{([^}]+)\}`) })

// UnsetVarsError is a server's ${VAR} with no default whose variable is not set, and
// its ${input:name}: VS Code's syntax for a value VS Code asks the person for, which
// gantry has no way to fill.
type UnsetVarsError struct {
	Names  []string // sorted, each once
	Inputs []string // the names after "input:", sorted, each once
}

func (e *UnsetVarsError) Error() string {
	var parts []string
	switch len(e.Names) {
	case 0:
	case 1:
		parts = append(parts, fmt.Sprintf("needs the environment variable %s, which is not set (${%s:-value} gives it a default)", e.Names[0], e.Names[0]))
	default:
		parts = append(parts, fmt.Sprintf("needs the environment variables %s, which are not set", strings.Join(e.Names, ", ")))
	}
	if len(e.Inputs) > 0 {
		refs := make([]string, len(e.Inputs))
		for i, n := range e.Inputs {
			refs[i] = "${input:" + n + "}"
		}
		what := "a value VS Code asks for"
		if len(refs) > 1 {
			what = "values VS Code asks for"
		}
		parts = append(parts, fmt.Sprintf("uses %s, VS Code's syntax for %s, which gantry cannot fill (write the value, or ${VAR} of an environment variable, in its place)", strings.Join(refs, ", "), what))
	}
	return strings.Join(parts, ", and ")
}

// ExpandMCP returns s with ${VAR} and ${VAR:-default} replaced in its command, args,
// env values, url and header values, as Claude Code replaces them: by the variable's
// value when it is set (even to ""), else by the default. lookup says a variable's
// value and whether it is set. Nothing else is expanded ($VAR, a cwd, the names of env
// and headers stay as written). A variable that is not set and has no default is an
// *UnsetVarsError naming every such variable (VS Code's ${input:name} among them).
func ExpandMCP(s MCPServer, lookup func(string) (string, bool)) (MCPServer, error) {
	missing := map[string]bool{}
	expand := func(v string) string {
		return mcpVar().ReplaceAllStringFunc(v, func(m string) string {
			name, def, hasDef := strings.Cut(m[2:len(m)-1], ":-")
			if val, ok := lookup(name); ok {
				return val
			}
			if hasDef {
				return def
			}
			missing[name] = true
			return m
		})
	}
	out := s
	out.Command = expand(s.Command)
	out.URL = expand(s.URL)
	if s.Args != nil {
		out.Args = make([]string, len(s.Args))
		for i, a := range s.Args {
			out.Args[i] = expand(a)
		}
	}
	out.Env = expandValues(s.Env, expand)
	out.Headers = expandValues(s.Headers, expand)
	if len(missing) > 0 {
		e := &UnsetVarsError{}
		for _, name := range slices.Sorted(maps.Keys(missing)) {
			if input, ok := strings.CutPrefix(name, "input:"); ok {
				e.Inputs = append(e.Inputs, input)
			} else {
				e.Names = append(e.Names, name)
			}
		}
		return s, e
	}
	return out, nil
}

func expandValues(m map[string]string, expand func(string) string) map[string]string {
	if m == nil {
		return nil
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = expand(v)
	}
	return out
}
