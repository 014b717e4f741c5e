package mcpclient

import (
	"strings"
	"testing"
)

func TestNames(t *testing.T) {
	var n namer
	if got := n.name("my server", "do.it/now"); got != "mcp__my_server__do_it_now" {
		t.Errorf("sanitised: %q", got)
	}
	// A name that sanitises to one already given gets a distinct one.
	again := n.name("my server", "do it now")
	if again == "mcp__my_server__do_it_now" || !strings.HasPrefix(again, "mcp__my_server__do_it_now_") || len(again) > maxNameLen {
		t.Errorf("a clash: %q", again)
	}
	long := strings.Repeat("x", 100)
	a, b := n.name("s", long), n.name("s", long+"y")
	if len(a) != maxNameLen || len(b) != maxNameLen || a == b || !strings.HasPrefix(a, "mcp__s__xxx") {
		t.Errorf("long names: %q %q", a, b)
	}
	var m namer // the same input gives the same name
	if m.name("s", long) != a {
		t.Errorf("names are not stable")
	}
	if got := sanitize("héllo wörld-_9"); got != "h_llo_w_rld-_9" {
		t.Errorf("sanitize: %q", got)
	}
}

func TestTailBufferKeepsTheTail(t *testing.T) {
	var b tailBuffer
	for i := 0; i < 1000; i++ {
		_, _ = b.Write([]byte("some noise on stderr\n"))
	}
	_, _ = b.Write([]byte(strings.Repeat("z", stderrKeep*2)))
	_, _ = b.Write([]byte("\nthe last words\n\n"))
	if len(b.buf) > stderrKeep {
		t.Errorf("kept %d bytes", len(b.buf))
	}
	if got := b.lastLine(); got != "the last words" {
		t.Errorf("last line %q", got)
	}
	var nilBuf *tailBuffer
	if nilBuf.lastLine() != "" {
		t.Error("a nil buffer has words")
	}
}
