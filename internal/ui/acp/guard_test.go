package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"testing"
)

// runGuard passes input through guard and returns what reached the SDK and what
// was answered.
func runGuard(t *testing.T, input string) (passed, answered []string) {
	t.Helper()
	pr, pw := io.Pipe()
	var out bytes.Buffer
	got := make(chan string)
	go func() {
		b, _ := io.ReadAll(pr)
		got <- string(b)
	}()
	if err := guard(strings.NewReader(input), pw, &out, slog.New(slog.NewTextHandler(io.Discard, nil))); err != nil {
		t.Fatal(err)
	}
	for _, l := range strings.Split(strings.TrimSpace(<-got), "\n") {
		if l != "" {
			passed = append(passed, l)
		}
	}
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		answered = append(answered, sc.Text())
	}
	return passed, answered
}

func TestGuard(t *testing.T) {
	cases := []struct {
		line, code, id string // code "" means passed on
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, "", ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"x"}}`, "", ""},
		{`{"jsonrpc":"2.0","id":7,"result":{}}`, "", ""},
		{`not json`, "-32700", "null"},
		{`{"jsonrpc":"2.0","id":1,`, "-32700", "null"},
		{`[{"jsonrpc":"2.0","id":1,"method":"initialize"}]`, "-32600", "null"},
		{`"a string"`, "-32600", "null"},
		{`{"jsonrpc":"2.0","id":3,"method":42}`, "-32600", "3"},
		{`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`, "-32600", "null"},
		{`{"jsonrpc":"2.0","id":4}`, "-32600", "4"},
		{`   `, "", ""},
	}
	for _, c := range cases {
		passed, answered := runGuard(t, c.line+"\n")
		if c.code == "" {
			if strings.TrimSpace(c.line) != "" && (len(passed) != 1 || passed[0] != c.line) || len(answered) != 0 {
				t.Errorf("%s: passed %v, answered %v", c.line, passed, answered)
			}
			continue
		}
		if len(passed) != 0 || len(answered) != 1 {
			t.Errorf("%s: passed %v, answered %v", c.line, passed, answered)
			continue
		}
		var resp struct {
			ID    json.RawMessage    `json:"id"`
			Error struct{ Code int } `json:"error"`
		}
		if err := json.Unmarshal([]byte(answered[0]), &resp); err != nil {
			t.Fatal(err)
		}
		if string(resp.ID) != c.id || itoa(resp.Error.Code) != c.code {
			t.Errorf("%s: answered %s", c.line, answered[0])
		}
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// A line longer than the SDK can read is answered with an error naming its id, and
// the lines after it still pass.
func TestGuardOversizedLine(t *testing.T) {
	huge := `{"jsonrpc":"2.0","id":99,"method":"session/prompt","params":{"prompt":[{"type":"text","text":"` + strings.Repeat("x", maxLine) + `"}]}}`
	next := `{"jsonrpc":"2.0","id":100,"method":"session/list","params":{}}`
	passed, answered := runGuard(t, huge+"\n"+next+"\n")
	if len(passed) != 1 || passed[0] != next {
		t.Errorf("passed %d lines", len(passed))
	}
	if len(answered) != 1 || !strings.Contains(answered[0], `"id":99`) || !strings.Contains(answered[0], "-32600") {
		t.Errorf("answered %v", answered)
	}
}

// FuzzGuard: any input is either passed on as whole lines or answered, never a panic.
func FuzzGuard(f *testing.F) {
	f.Add(`{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n")
	f.Add("not json\n[1]\n{\"id\":1}\n")
	f.Add(`{"id":"x","method":""}`)
	f.Fuzz(func(t *testing.T, in string) {
		pr, pw := io.Pipe()
		go func() { _, _ = io.Copy(io.Discard, pr) }()
		var out bytes.Buffer
		_ = guard(strings.NewReader(in), pw, &out, slog.New(slog.NewTextHandler(io.Discard, nil)))
		for _, l := range strings.Split(strings.TrimSpace(out.String()), "\n") {
			if l != "" && !json.Valid([]byte(l)) {
				t.Fatalf("answered with invalid JSON: %q", l)
			}
		}
	})
}
