package app

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/testenv"
	"github.com/gantry-dev/gantry/internal/tool"
)

// The session's sandbox carries its deny rules into the kernel's view: the read
// rule's file masked, the whole-program rule's program hidden (not the argument
// rule's, nor bash, which runs every command), and the files that run code later
// read-only; a command in it can neither read the secret nor run mv.
func TestSandboxSpecFromRules(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	project := t.TempDir()
	os.Mkdir(filepath.Join(project, ".git"), 0o755)
	os.WriteFile(filepath.Join(project, ".env"), []byte("TOKEN=hunter2\n"), 0o600)
	os.WriteFile(filepath.Join(project, "a"), []byte("x"), 0o644)
	os.WriteFile(filepath.Join(home, ".bashrc"), []byte("# rc\n"), 0o644)
	cfg, err := config.Load(project)
	if err != nil {
		t.Fatal(err)
	}
	gate, err := permission.NewEngine(permission.ModeYolo, nil, []string{`read_file:\.env`, `bash:mv( .*)?`, `bash:(bash|/usr/bin/bash)( .*)?`, `bash:git push.*`})
	if err != nil {
		t.Fatal(err)
	}
	gate.SetProject(cfg.Root())
	gate.SetFileTools(map[string]tool.Files{"read_file": tool.FilesRead})
	on := true
	s := newSandboxer(cfg, &on, gate)
	sb := s.current()
	if want := []string{filepath.Join(cfg.Root(), ".env")}; !slices.Equal(sb.Unreadable, want) {
		t.Errorf("Unreadable = %q, want %q", sb.Unreadable, want)
	}
	if !slices.Equal(sb.Hidden, []string{"mv"}) {
		t.Errorf("Hidden = %q, want mv alone", sb.Hidden)
	}
	for _, want := range []string{filepath.Join(home, ".bashrc"), filepath.Join(cfg.Root(), ".mcp.json"), filepath.Join(cfg.Root(), ".git"), filepath.Join(home, ".claude", "settings.json")} {
		if !slices.Contains(sb.ReadOnly, want) {
			t.Errorf("ReadOnly lacks %s: %q", want, sb.ReadOnly)
		}
	}
	if b, why := contain.SandboxStatus(); b != contain.BackendBubblewrap {
		if len(s.lost()) == 0 {
			t.Errorf("no notice of what the %s sandbox cannot do", b)
		}
		testenv.Need(t, "bwrap")
		t.Skipf("bubblewrap cannot run a command here: %s", why)
	}
	if lost := s.lost(); len(lost) != 0 {
		t.Errorf("bubblewrap loses nothing, but: %q", lost)
	}
	p := contain.New(`cat .env; mv a b; echo end`, contain.Options{Dir: project, Sandbox: sb})
	var out bytes.Buffer
	p.Cmd.Stdout, p.Cmd.Stderr = &out, &out
	if err := p.Start(); err != nil {
		t.Fatal(err)
	}
	p.Wait(context.Background(), 30*time.Second, time.Second, nil)
	if s := out.String(); strings.Contains(s, "hunter2") || !strings.Contains(s, "end") {
		t.Errorf("%q", s)
	}
	if _, err := os.Stat(filepath.Join(project, "a")); err != nil {
		t.Errorf("mv ran: %v", err)
	}
}
