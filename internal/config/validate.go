package config

import (
	"cmp"
	"errors"
	"fmt"
	"regexp"
	"regexp/syntax"
	"slices"
	"strconv"
	"strings"
)

// validate checks the values of one file's layer; every problem is a FileError with
// the line of its key, and all of them are returned, in line order.
func validate(path string, l *layer, pos *positions) error {
	v := validator{path: path, pos: pos}
	if l.MaxOutput != nil && *l.MaxOutput < 1000 {
		v.fail(keyPath{"maxOutput"}, "must be at least 1000 (characters), not %d", *l.MaxOutput)
	}
	if l.PreviewLines != nil && *l.PreviewLines < 0 {
		v.fail(keyPath{"previewLines"}, "must be 0 or more, not %d", *l.PreviewLines)
	}
	if m := l.Model; m != nil {
		for _, t := range []struct {
			key string
			v   *int
			max int
		}{{"streamIdleTimeout", m.StreamIdleTimeout, 3600}, {"firstByteTimeout", m.FirstByteTimeout, 3600},
			{"pingTimeout", m.PingTimeout, 3600}, {"responseTimeout", m.ResponseTimeout, 86400},
			{"maxRetryAfter", m.MaxRetryAfter, 86400}} {
			if t.v != nil && (*t.v < 1 || *t.v > t.max) {
				v.fail(keyPath{"model", t.key}, "must be between 1 and %d (seconds), not %d", t.max, *t.v)
			}
		}
	}
	if l.Providers != nil {
		v.providers(l.Providers)
	}
	if l.Checkpoints != nil && l.Checkpoints.MaxFileMB != nil && (*l.Checkpoints.MaxFileMB < 1 || *l.Checkpoints.MaxFileMB > 1024) {
		v.fail(keyPath{"checkpoints", "maxFileMB"}, "must be between 1 and 1024 (MB), not %d", *l.Checkpoints.MaxFileMB)
	}
	if l.Bash != nil && l.Bash.Timeout != nil && (*l.Bash.Timeout < 1 || *l.Bash.Timeout > 600) {
		v.fail(keyPath{"bash", "timeout"}, "must be between 1 and 600 (seconds), not %d", *l.Bash.Timeout)
	}
	if l.Compact != nil && l.Compact.Threshold != nil {
		if x := *l.Compact.Threshold; !(x > 0 && x <= 1) {
			v.fail(keyPath{"compact", "threshold"}, "must be a share of the context window, above 0 and at most 1, not %v", x)
		}
	}
	if l.Tools != nil && l.Tools.Defer != nil {
		v.oneOf(keyPath{"tools", "defer"}, *l.Tools.Defer, DeferModes)
	}
	if l.Tools != nil && l.Tools.Search != nil {
		v.oneOf(keyPath{"tools", "search"}, *l.Tools.Search, SearchModes)
	}
	if l.PermissionMode != nil {
		v.oneOf(keyPath{"permissionMode"}, *l.PermissionMode, PermissionModes)
	}
	if l.Compact != nil && l.Compact.Window != nil && *l.Compact.Window < 0 {
		v.fail(keyPath{"compact", "window"}, "must be 0 (gantry's own table) or a number of tokens, not %d", *l.Compact.Window)
	}
	if l.MaxTurns != nil && *l.MaxTurns < 0 {
		v.fail(keyPath{"maxTurns"}, "must be 0 (no limit) or more, not %d", *l.MaxTurns)
	}
	for name, srv := range l.MCPServers {
		v.mcpServer(keyPath{"mcpServers", name}, srv)
	}
	for i, sl := range l.sections {
		if sl != nil {
			sections[i].check(sl, Checker{&v, keyPath{sections[i].key}})
		}
	}
	for event, matchers := range l.Hooks {
		at := keyPath{"hooks", event}
		if !slices.Contains(HookEvents, event) {
			v.fail(at, "is not a hook event; the events are %s", strings.Join(HookEvents, ", "))
			continue
		}
		for i, m := range matchers {
			v.hookMatcher(at.child("["+strconv.Itoa(i)+"]"), m)
		}
	}
	slices.SortStableFunc(v.errs, func(a, b error) int {
		return cmp.Compare(a.(*FileError).Line, b.(*FileError).Line)
	})
	return errors.Join(v.errs...)
}

type validator struct {
	path string
	pos  *positions
	errs []error
}

// fail records that the value at key is wrong; msg says how, after the key's name.
func (v *validator) fail(key keyPath, msg string, args ...any) {
	k := key.String()
	v.errs = append(v.errs, &FileError{
		Path: v.path,
		Line: v.lineOf(key),
		Key:  k,
		Msg:  fmt.Sprintf("key %q ", k) + fmt.Sprintf(msg, args...),
	})
}

// lineOf returns the line of key, or of its nearest parent written in the file (a key
// that is missing is reported where its parent is).
func (v *validator) lineOf(key keyPath) int {
	for ; len(key) > 0; key = key[:len(key)-1] {
		if n, ok := v.pos.lines[key.String()]; ok {
			return n
		}
	}
	return 0
}

func (v *validator) oneOf(key keyPath, val string, allowed []string) {
	if !slices.Contains(allowed, val) {
		v.fail(key, "must be one of %s, not %q", strings.Join(allowed, ", "), val)
	}
}

func (v *validator) mcpServer(at keyPath, s MCPServer) {
	if s.Type != "" && !slices.Contains(MCPTypes, s.Type) {
		v.oneOf(at.child("type"), s.Type, MCPTypes)
	} else if msg := mcpShape(s); msg != "" {
		v.fail(at, "%s", msg)
	}
	if s.Level != "" {
		v.oneOf(at.child("level"), s.Level, Levels)
	}
	if s.Defer != "" {
		v.oneOf(at.child("defer"), s.Defer, DeferModes)
	}
	if s.Timeout < 0 {
		v.fail(at.child("timeout"), "must be 0 (the default) or more seconds, not %d", s.Timeout)
	}
}

func (v *validator) hookMatcher(at keyPath, m HookMatcher) {
	// "*" is every tool, as in Claude Code's settings; anything else is a regex.
	if _, err := regexp.Compile(m.Matcher); err != nil && m.Matcher != "*" {
		var se *syntax.Error
		if errors.As(err, &se) {
			v.fail(at.child("matcher"), "is not a valid regular expression: %s in %q", se.Code, se.Expr)
		} else {
			v.fail(at.child("matcher"), "is not a valid regular expression: %v", err)
		}
	}
	if len(m.Hooks) == 0 {
		v.fail(at, "has no hooks")
	}
	for i, h := range m.Hooks {
		hat := at.child("hooks").child("[" + strconv.Itoa(i) + "]")
		switch h.Type {
		case "command":
			if strings.TrimSpace(h.Command) == "" {
				v.fail(hat.child("command"), "must be a shell command")
			}
			if h.Prompt != "" {
				v.fail(hat.child("prompt"), "belongs to a hook of type prompt, and this one is of type command")
			}
		case "prompt":
			if strings.TrimSpace(h.Prompt) == "" {
				v.fail(hat.child("prompt"), "must be the question for the model (a hook of type prompt)")
			}
			if h.Command != "" {
				v.fail(hat.child("command"), "belongs to a hook of type command, and this one is of type prompt")
			}
		case "":
			v.fail(hat.child("type"), "is missing: give type: command (with a command) or type: prompt (with a prompt)")
		default:
			v.fail(hat.child("type"), "must be one of %s, not %q", strings.Join(HookTypes, ", "), h.Type)
		}
		if h.Timeout < 0 {
			v.fail(hat.child("timeout"), "must be 0 (the default) or more seconds, not %d", h.Timeout)
		}
		if h.OnFailure != "" {
			v.oneOf(hat.child("onFailure"), h.OnFailure, []string{"warn", "block"})
		}
	}
}
