package permission

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
)

// SaveRule writes an allow rule for the call into <projectRoot>/.gantry/permissions.yaml
// and adds it to the session. The file and its folder are made when missing; an
// existing file keeps its content and comments, the rule going at the end of
// permissions.allow. A bash command gets one exact rule for each simple command in it
// (bash:<the command, regexp-quoted>), since rules match simple commands; the rules
// written are returned joined by ", ". A command with a computed program, inline code
// or a syntax error cannot be saved: no rule could allow it.
func (e *Engine) SaveRule(projectRoot string, c Call) (string, error) {
	rules, err := rulesFor(c)
	if err != nil {
		return "", err
	}
	file := filepath.Join(projectRoot, ProjectRulesFile)
	if err := appendAllowRules(file, rules); err != nil {
		return "", err
	}
	parsed, err := parseRules(rules, file)
	if err != nil {
		return "", err
	}
	e.mu.Lock()
	e.allow = append(e.allow, parsed...)
	e.mu.Unlock()
	return strings.Join(rules, ", "), nil
}

// rulesFor returns the exact allow rules for a call.
func rulesFor(c Call) ([]string, error) {
	p := strings.TrimSpace(c.Principal)
	if c.Tool != "bash" {
		if p == "" {
			return []string{c.Tool}, nil
		}
		return []string{c.Tool + ":" + regexp.QuoteMeta(p)}, nil
	}
	cmds, err := Commands(c.Principal)
	if err != nil {
		return nil, fmt.Errorf("the command cannot be saved as a rule: it cannot be parsed (%v)", err)
	}
	var rules []string
	for _, sc := range cmds {
		if sc.Opaque || sc.RunsCode {
			return nil, fmt.Errorf("the command cannot be saved as a rule: %q is not one a rule can allow, because %s", clip(sc.Text), sc.Why)
		}
		r := "bash:" + regexp.QuoteMeta(sc.Text)
		if !slices.Contains(rules, r) {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil, errors.New("the command cannot be saved as a rule: it runs no command")
	}
	return rules, nil
}

// appendAllowRules adds rules to permissions.allow of a rules file, by editing its text
// so that comments and layout stay; rules already in the file are not repeated. The
// result must load, or the file is left as it was.
func appendAllowRules(file string, rules []string) error {
	old, err := os.ReadFile(file)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	existing, err := loadRulesFile(file)
	if err != nil {
		return err
	}
	var add []string
	for _, r := range rules {
		if !slices.ContainsFunc(existing.Allow, func(x Rule) bool { return x.src == r }) && !slices.Contains(add, r) {
			add = append(add, r)
		}
	}
	if len(add) == 0 {
		return nil
	}
	text, err := insertAllow(string(old), add)
	if err != nil {
		return fmt.Errorf("%s%v", file, err) // the error starts ":line: "
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		return err
	}
	if _, err := loadRulesFile(file); err != nil {
		if old == nil {
			_ = os.Remove(file)
		} else {
			_ = os.WriteFile(file, old, 0o644)
		}
		return fmt.Errorf("the rule could not be added to the rules file: %v", err)
	}
	return nil
}

// insertAllow returns the text of a rules file with rules added to permissions.allow.
func insertAllow(text string, rules []string) (string, error) {
	lines := strings.SplitAfter(text, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) > 0 && !strings.HasSuffix(lines[len(lines)-1], "\n") {
		lines[len(lines)-1] += "\n"
	}
	items := func(indent string) []string {
		out := make([]string, len(rules))
		for i, r := range rules {
			out[i] = indent + "- " + yamlString(r) + "\n"
		}
		return out
	}
	at := func(line int, add []string) string { // insert before 0-based line
		out := slices.Concat(lines[:line], add, lines[line:])
		return strings.Join(out, "")
	}
	f, err := parser.ParseBytes([]byte(text), parser.ParseComments)
	if err != nil {
		return "", syntaxError("", err)
	}
	var perms *ast.MappingValueNode
	for _, doc := range f.Docs {
		kvs, _ := mappingValues(doc.Body)
		for _, kv := range kvs {
			if keyOf(kv) == "permissions" {
				perms = kv
			}
		}
	}
	if perms == nil {
		add := append([]string{"permissions:\n", "  allow:\n"}, items("    ")...)
		return at(len(lines), add), nil
	}
	kvs, ok := mappingValues(perms.Value)
	if !ok {
		if _, null := perms.Value.(*ast.NullNode); !null {
			return "", fmt.Errorf("line %d: permissions is not a mapping", line(perms.Value))
		}
		col := perms.Key.GetToken().Position.Column
		add := append([]string{strings.Repeat(" ", col+1) + "allow:\n"}, items(strings.Repeat(" ", col+3))...)
		return at(line(perms.Key), add), nil
	}
	if m, ok := perms.Value.(*ast.MappingNode); ok && m.IsFlowStyle {
		return "", fmt.Errorf("line %d: permissions is written inline ({…}); write it as a block to add rules to it", line(perms.Value))
	}
	for _, kv := range kvs {
		if keyOf(kv) != "allow" {
			continue
		}
		col := kv.Key.GetToken().Position.Column
		switch v := kv.Value.(type) {
		case *ast.NullNode:
			return at(line(kv.Key), items(strings.Repeat(" ", col+1))), nil
		case *ast.SequenceNode:
			if v.IsFlowStyle || len(v.Values) == 0 {
				return "", fmt.Errorf("line %d: permissions.allow is written inline ([…]); write it as a block list to add rules to it", line(v))
			}
			last := v.Values[len(v.Values)-1]
			dash := lines[v.Start.Position.Line-1]
			indent := dash[:len(dash)-len(strings.TrimLeft(dash, " "))]
			return at(line(last), items(indent)), nil
		default:
			return "", fmt.Errorf("line %d: permissions.allow is not a list", line(kv.Value))
		}
	}
	first := kvs[0].Key.GetToken().Position
	add := append([]string{strings.Repeat(" ", first.Column-1) + "allow:\n"}, items(strings.Repeat(" ", first.Column+1))...)
	return at(first.Line-1, add), nil
}

// yamlString quotes a rule for YAML: single quotes, which keep backslashes as they are.
func yamlString(s string) string {
	if strings.ContainsAny(s, "\n\r\t") {
		return fmt.Sprintf("%q", s)
	}
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
