package permission

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// The session's outputs folder is read without a question in every mode, past path
// deny rules and ask rules, by the gate and the file guard alike; nothing else is:
// a neighbour folder, a link out of it, a write into it, a tool denied whole.
func TestOwnOutputsAreReadable(t *testing.T) {
	data := t.TempDir()
	outputs := filepath.Join(data, "outputs", "s1")
	if err := os.MkdirAll(outputs, 0o700); err != nil {
		t.Fatal(err)
	}
	saved := filepath.Join(outputs, "c1.txt")
	if err := os.WriteFile(saved, []byte("x\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(data, "outputs", "s2", "c1.txt")
	secret := filepath.Join(data, "secret.txt")
	if err := os.WriteFile(secret, []byte("k\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(outputs, "link.txt")
	if err := os.Symlink(secret, link); err != nil {
		t.Fatal(err)
	}
	deny := []string{"read_file:/.*", "grep:" + filepath.Join(data, ".*")}
	for _, mode := range []Mode{ModeDefault, ModePlan, ModeAcceptEdits, ModeYolo} {
		e, root := project(t, mode, nil, deny)
		if err := e.AddAskRules([]string{"read_file"}, "test"); err != nil {
			t.Fatal(err)
		}
		e.SetOwnOutputs(outputs)
		for _, name := range []string{"read_file", "grep"} {
			if v := e.Check(fileCall(name, root, saved)); v.Decision != Allow {
				t.Errorf("%s: %s reads its own output: %+v", mode, name, v)
			}
			if err := e.FileGuard(name).Read(saved); err != nil {
				t.Errorf("%s: the guard refuses %s its own output: %v", mode, name, err)
			}
			for _, p := range []string{other, link, filepath.Join(outputs, "..", "..", "secret.txt")} {
				if v := e.Check(fileCall(name, root, p)); v.Decision == Allow {
					t.Errorf("%s: %s reads %s: %+v", mode, name, p, v)
				}
			}
			if err := e.FileGuard(name).Read(link); err == nil {
				t.Errorf("%s: the guard lets %s follow a link out of the outputs folder", mode, name)
			}
		}
		if v := e.Check(fileCall("write_file", root, saved)); v.Decision == Allow && mode != ModeYolo {
			t.Errorf("%s: a write into the outputs folder is allowed: %+v", mode, v)
		}
	}
	e, root := project(t, ModeYolo, nil, []string{"read_file"})
	e.SetOwnOutputs(outputs)
	if v := e.Check(fileCall("read_file", root, saved)); v.Decision != Deny {
		t.Errorf("read_file denied whole still reads the outputs: %+v", v)
	}
	if v := e.Check(Call{Tool: "read_file", Level: tool.LevelRead, Files: tool.FilesRead}); v.Decision != Deny {
		t.Errorf("a call of no path: %+v", v)
	}
}
