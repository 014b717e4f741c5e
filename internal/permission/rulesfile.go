package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/editdist"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// ProjectRulesFile is the project rules file, relative to the project root.
const ProjectRulesFile = ".gantry/permissions.yaml"

// UserRulesFile is the name of the user rules file in the user config folder.
const UserRulesFile = "permissions.yaml"

// RuleSet is the merged content of the rules files. Each rule keeps, in Source, the
// file and line it comes from.
type RuleSet struct {
	AllowAll bool
	Allow    []Rule
	Deny     []Rule
}

// LoadRules reads <projectRoot>/.gantry/permissions.yaml and <userDir>/permissions.yaml
// and merges them: the allow and deny lists are joined, and allow_all holds if either
// file sets it. A missing file (or an empty projectRoot or userDir) is no error; a
// bad rule or an unknown key is one, naming the file and the line.
func LoadRules(projectRoot, userDir string) (RuleSet, error) {
	var set RuleSet
	for _, p := range rulesFiles(projectRoot, userDir) {
		one, err := loadRulesFile(p)
		if err != nil {
			return RuleSet{}, err
		}
		set.AllowAll = set.AllowAll || one.AllowAll
		set.Allow = append(set.Allow, one.Allow...)
		set.Deny = append(set.Deny, one.Deny...)
	}
	return set, nil
}

func rulesFiles(projectRoot, userDir string) []string {
	var out []string
	if projectRoot != "" {
		out = append(out, filepath.Join(projectRoot, ProjectRulesFile))
	}
	if userDir != "" {
		out = append(out, filepath.Join(userDir, UserRulesFile))
	}
	return out
}

// Check reports the rules that name a tool gantry does not have, by where they come
// from (file and line, or the flag). "*", names ending in "*" and names starting with
// mcp__ (tools of MCP servers, which come and go) pass. names lists the known tools,
// for a suggestion.
func (s RuleSet) Check(known func(tool string) bool, names []string) error {
	return CheckTools(append(append([]Rule(nil), s.Allow...), s.Deny...), known, names)
}

// CheckTools reports the rules of rules that name no known tool (see RuleSet.Check).
func CheckTools(rules []Rule, known func(tool string) bool, names []string) error {
	var errs []error
	for _, r := range rules {
		if r.Tool == "*" || strings.HasSuffix(r.Tool, "*") || strings.HasPrefix(r.Tool, "mcp__") || known(r.Tool) {
			continue
		}
		msg := fmt.Sprintf("rule %q names no tool gantry has (%s)", r.src, r.Tool)
		if near := closest(r.Tool, names); near != "" {
			msg += fmt.Sprintf("; did you mean %s?", near)
		}
		if r.Source != "" {
			msg = r.Source + ": " + msg
		}
		errs = append(errs, errors.New(msg))
	}
	return errors.Join(errs...)
}

// closest is the name nearest to s by edit distance, when it is near enough to be a
// typo of it (a third of its letters, a swap counting as one).
func closest(s string, names []string) string {
	best, bestD := "", max(len(s)/3, 1)+1
	for _, n := range names {
		if d := editdist.Distance(s, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

func loadRulesFile(path string) (RuleSet, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return RuleSet{}, nil
	}
	if err != nil {
		return RuleSet{}, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		return RuleSet{}, syntaxError(path, err)
	}
	var set RuleSet
	for _, doc := range f.Docs {
		if doc.Body == nil {
			continue
		}
		if _, ok := doc.Body.(*ast.NullNode); ok {
			continue
		}
		top, ok := mappingValues(doc.Body)
		if !ok {
			return RuleSet{}, posErr(path, doc.Body, "the file must be a mapping with the key permissions")
		}
		for _, kv := range top {
			if key := keyOf(kv); key != "permissions" {
				return RuleSet{}, posErr(path, kv.Key, fmt.Sprintf("unknown key %q (want permissions)", key))
			}
			if err := readPermissions(path, kv.Value, &set); err != nil {
				return RuleSet{}, err
			}
		}
	}
	return set, nil
}

func readPermissions(path string, n ast.Node, set *RuleSet) error {
	if _, ok := n.(*ast.NullNode); ok {
		return nil
	}
	kvs, ok := mappingValues(n)
	if !ok {
		return posErr(path, n, "permissions must be a mapping of allow_all, allow and deny")
	}
	for _, kv := range kvs {
		switch key := keyOf(kv); key {
		case "allow_all":
			b, ok := kv.Value.(*ast.BoolNode)
			if !ok {
				return posErr(path, kv.Value, "permissions.allow_all must be true or false")
			}
			set.AllowAll = set.AllowAll || b.Value
		case "allow", "deny":
			rules, err := readRules(path, key, kv.Value)
			if err != nil {
				return err
			}
			if key == "allow" {
				set.Allow = append(set.Allow, rules...)
			} else {
				set.Deny = append(set.Deny, rules...)
			}
		default:
			return posErr(path, kv.Key, fmt.Sprintf("unknown key %q in permissions (want allow_all, allow or deny)", key))
		}
	}
	return nil
}

func readRules(path, key string, n ast.Node) ([]Rule, error) {
	if _, ok := n.(*ast.NullNode); ok {
		return nil, nil
	}
	seq, ok := n.(*ast.SequenceNode)
	if !ok {
		return nil, posErr(path, n, fmt.Sprintf("permissions.%s must be a list of rules", key))
	}
	var rules []Rule
	for _, v := range seq.Values {
		s, ok := v.(*ast.StringNode)
		if !ok {
			return nil, posErr(path, v, fmt.Sprintf("a rule in permissions.%s must be a string, not %s", key, strings.TrimSpace(v.String())))
		}
		r, err := ParseRule(s.Value)
		if err != nil {
			return nil, posErr(path, v, strings.TrimPrefix(err.Error(), "permission "))
		}
		r.Source = fmt.Sprintf("%s:%d", path, line(v))
		rules = append(rules, r)
	}
	return rules, nil
}

// mappingValues returns the entries of a mapping node.
func mappingValues(n ast.Node) ([]*ast.MappingValueNode, bool) {
	switch m := n.(type) {
	case *ast.MappingNode:
		return m.Values, true
	case *ast.MappingValueNode:
		return []*ast.MappingValueNode{m}, true
	}
	return nil, false
}

func keyOf(kv *ast.MappingValueNode) string {
	if t := kv.Key.GetToken(); t != nil {
		return t.Value
	}
	return kv.Key.String()
}

func line(n ast.Node) int {
	if t := n.GetToken(); t != nil && t.Position != nil {
		return t.Position.Line
	}
	return 0
}

func posErr(path string, n ast.Node, msg string) error {
	return fmt.Errorf("%s:%d: %s", path, line(n), msg)
}
