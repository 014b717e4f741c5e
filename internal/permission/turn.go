package permission

import "slices"

// AllowUntil adds allow rules, with source as their Source, until the returned
// remove is called: a custom command's allowed-tools, for its turn only. Nothing is
// added unless every rule parses.
func (e *Engine) AllowUntil(rules []string, source string) (remove func(), err error) {
	rs, err := parseRules(rules, source)
	if err != nil {
		return func() {}, err
	}
	e.mu.Lock()
	e.allow = append(e.allow, rs...)
	e.mu.Unlock()
	return func() {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.allow = slices.DeleteFunc(e.allow, func(r Rule) bool {
			return r.Source == source && slices.ContainsFunc(rs, func(a Rule) bool { return a.String() == r.String() })
		})
	}, nil
}
