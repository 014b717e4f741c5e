package app

import (
	"path/filepath"
	"testing"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// Every project file whose change asks for the folder's trust again is one the gate
// protects as a file that runs code later: writing it is asked in every mode, yolo
// included, so a session cannot plant what the next one would run (the other tools'
// MCP files among them: Codex's, opencode's, Crush's).
func TestTrustFilesAreProtected(t *testing.T) {
	dir := project(t, "", map[string]string{})
	cfg, err := config.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	gate, err := newGate(cfg, Options{PermissionMode: string(permission.ModeYolo)}, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, rel := range config.TrustFiles {
		abs := filepath.Join(dir, rel)
		v := gate.Check(permission.Call{Tool: "write_file", Level: tool.LevelWrite, Principal: abs, Paths: []string{abs}, Files: tool.FilesWrite})
		if v.Decision != permission.Ask || !v.EveryMode {
			t.Errorf("writing %s in yolo: %v (%s), want asked in every mode", rel, v.Decision, v.Reason)
		}
	}
}
