package permission

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// fencedTools are the read tools that reach outside the machine: once an allow rule
// with a pattern names one (web_fetch:domain:example.com, Claude Code's
// WebFetch(domain:example.com)), its calls that no allow rule covers are asked in the
// default and accept-edits modes, as Claude Code asks for a domain not allowed.
var fencedTools = []string{"web_fetch"}

// fencedByAllow tells whether name is a fenced tool that an allow rule with a
// pattern names.
func (e *Engine) fencedByAllow(name string) bool {
	if !slices.Contains(fencedTools, name) {
		return false
	}
	for _, r := range e.allow {
		if r.Pattern != nil && r.MatchesTool(name) {
			return true
		}
	}
	return false
}

// hostName is what a domain rule may name: labels of letters, digits and hyphens.
var hostName = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?(\.[A-Za-z0-9]([A-Za-z0-9-]*[A-Za-z0-9])?)*$`)
})

// domainPattern is the pattern of a rule's "domain:example.com": an http or https URL
// whose host is the domain or one of its subdomains (never example.com.evil.net, nor
// a user part like https://example.com@evil.net), with any port, path or query.
func domainPattern(domain string) (string, error) {
	domain = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(domain)), ".")
	if !hostName().MatchString(domain) {
		return "", fmt.Errorf("%q is not a domain name (want example.com)", domain)
	}
	return `(?i:https?://([^/?#@\\]*\.)?` + regexp.QuoteMeta(domain) + `(:[0-9]+)?)([/?#].*)?`, nil
}
