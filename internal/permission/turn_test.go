package permission

import (
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// Rules allowed until removed hold, then are gone; the rules added before them stay.
func TestAllowUntil(t *testing.T) {
	e := mustEngine(t, ModeDefault, nil, nil)
	if err := e.AllowForSession([]string{"read_file"}); err != nil {
		t.Fatal(err)
	}
	call := Call{Tool: "bash", Level: tool.LevelExec, Principal: "echo hi"}
	if v := e.Check(call); v.Decision == Allow {
		t.Fatalf("echo allowed before the grant: %+v", v)
	}
	remove, err := e.AllowUntil([]string{"bash:echo( .*)?"}, "command /x")
	if err != nil {
		t.Fatal(err)
	}
	if v := e.Check(call); v.Decision != Allow {
		t.Errorf("echo not allowed during the grant: %+v", v)
	}
	remove()
	if v := e.Check(call); v.Decision == Allow {
		t.Errorf("echo still allowed after the grant: %+v", v)
	}
	allow, _ := e.Rules()
	if len(allow) != 1 || allow[0].String() != "read_file" {
		t.Errorf("rules after: %v", allow)
	}
	if _, err := e.AllowUntil([]string{"bash:("}, "command /y"); err == nil {
		t.Error("a rule that does not parse was accepted")
	}
}
