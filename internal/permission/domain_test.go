package permission

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Once an allow rule names the domains web_fetch may reach (gantry's
// web_fetch:domain:example.com, or the pattern a Claude Code WebFetch(domain:…) rule
// becomes), a fetch of any other host is asked in default and accept-edits modes —
// example.com.evil.net and a user part included — and still runs in yolo; with no
// such rule, web_fetch is a read tool that needs no permission.
func TestWebFetchDomainRules(t *testing.T) {
	fetch := func(url string) Call { return Call{Tool: "web_fetch", Level: tool.LevelRead, Principal: url} }
	for _, rule := range []string{`web_fetch:domain:example.com`, `web_fetch:https?://([^/@]*\.)?example\.com(:[0-9]+)?(/.*)?`} {
		for _, c := range []struct {
			mode Mode
			url  string
			want Decision
		}{
			{ModeDefault, "https://example.com/a", Allow},
			{ModeDefault, "https://docs.example.com/a?b", Allow},
			{ModeDefault, "http://example.com:8080/", Allow},
			{ModeDefault, "https://example.com.evil.net/", Ask},
			{ModeDefault, "https://evilexample.com/", Ask},
			{ModeDefault, "https://example.com@evil.net/", Ask},
			{ModeDefault, "https://evil.net/?u=https://example.com/", Ask},
			{ModeAcceptEdits, "https://evil.net/", Ask},
			{ModeYolo, "https://evil.net/", Allow},
			{ModePlan, "https://example.com/", Allow},
		} {
			e := mustEngine(t, c.mode, []string{rule}, nil)
			if v := e.Check(fetch(c.url)); v.Decision != c.want {
				t.Errorf("%s, %s, %s: %v (%s), want %v", rule, c.mode, c.url, v.Decision, v.Reason, c.want)
			}
		}
	}
	if v := mustEngine(t, ModeDefault, nil, nil).Check(fetch("https://evil.net/")); v.Decision != Allow {
		t.Errorf("without domain rules: %v", v.Decision)
	}
	if v := mustEngine(t, ModeDefault, []string{"web_fetch:domain:EXAMPLE.com"}, nil).Check(fetch("HTTPS://Docs.Example.COM/x")); v.Decision != Allow {
		t.Errorf("the host's case: %v", v.Decision)
	}
	for _, bad := range []string{"web_fetch:domain:", "web_fetch:domain:exa mple.com", "web_fetch:domain:*.example.com", "web_fetch:domain:example.com/path"} {
		if _, err := ParseRule(bad); err == nil {
			t.Errorf("%s was read", bad)
		}
	}
}
