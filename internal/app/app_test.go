package app

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/tool"
)

// project makes a git project with the given config file and files, and a private
// environment with a provider.
func project(t *testing.T, config string, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	os.Mkdir(filepath.Join(dir, ".git"), 0o755)
	files[".gantry/config.yaml"] = config
	for name, body := range files {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	home := t.TempDir()
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(home, "config"))
	// The person trusts the folder (trust.go): its project files run. The tests of
	// a folder not trusted write their own user config.
	trustFolder(t, dir)
	t.Setenv("GANTRY_DATA_DIR", filepath.Join(home, "data"))
	t.Setenv("GANTRY_PROVIDER", "")
	t.Setenv("GANTRY_MODEL", "")
	t.Setenv("ANTHROPIC_API_KEY", "test")
	t.Setenv("OPENAI_API_KEY", "")
	return dir
}

// trustFolder writes the user's config (GANTRY_CONFIG_DIR) with trustedFolders: dir.
func trustFolder(t *testing.T, dir string) {
	t.Helper()
	user := os.Getenv("GANTRY_CONFIG_DIR")
	if err := os.MkdirAll(user, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(user, "config.yaml"), []byte("trustedFolders: ["+strconv.Quote(dir)+"]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, opts Options) *App {
	t.Helper()
	a, err := newStarted(opts, func(face.Event) {}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// newStarted is New then Start, as a face does.
func newStarted(opts Options, sink face.Sink, asker face.Asker) (*App, error) {
	a, err := New(opts)
	if err != nil {
		return nil, err
	}
	if err := a.Start(context.Background(), sink, asker); err != nil {
		a.Close()
		return nil, err
	}
	return a, nil
}

func TestToolsFollowTheirConditions(t *testing.T) {
	dir := project(t, "maxOutput: 5000\n", map[string]string{})
	a := open(t, Options{Cwd: dir})
	names := a.ToolNames()
	for _, want := range []string{"bash", "task_output", "task_kill", "read_file", "write_file", "edit_file", "apply_patch"} {
		if !slices.Contains(names, want) {
			t.Errorf("%s not declared: %v", want, names)
		}
	}
	// The built-in skills are always there, so read_skill is always declared.
	rs, ok := a.agent.Tools.Lookup("read_skill")
	if !ok || !strings.Contains(rs.Spec().Description, " gantry — ") || !strings.Contains(rs.Spec().Description, " skill-creator — ") {
		t.Errorf("read_skill without the built-in skills: %v", names)
	}

	dir = project(t, "editTools: false\n", map[string]string{".gantry/skills/deploy.md": "---\ndescription: Ship it.\n---\n# Deploy\n"})
	a = open(t, Options{Cwd: dir})
	names = a.ToolNames()
	if slices.Contains(names, "read_file") || slices.Contains(names, "edit_file") {
		t.Errorf("file tools declared with editTools false: %v", names)
	}
	if !slices.Contains(names, "read_skill") {
		t.Errorf("read_skill not declared with a skill: %v", names)
	}
	rs, _ = a.agent.Tools.Lookup("read_skill")
	if !strings.Contains(rs.Spec().Description, " deploy — Ship it.") {
		t.Errorf("catalogue: %q", rs.Spec().Description)
	}
}

func TestFlagsWinOverConfig(t *testing.T) {
	dir := project(t, "model: from-config\npermissionMode: accept-edits\nmaxOutput: 4000\npermissions:\n  deny: [\"bash:rm.*\"]\n", map[string]string{})
	a := open(t, Options{Cwd: dir})
	if a.Model() != "from-config" || a.gate.Mode() != permission.ModeAcceptEdits || a.agent.Config.MaxOutput != 4000 {
		t.Fatalf("config not applied: model %q mode %q maxOutput %d", a.Model(), a.gate.Mode(), a.agent.Config.MaxOutput)
	}
	if v := a.gate.Check(permission.Call{Tool: "bash", Level: tool.LevelExec, Principal: "rm -rf x"}); v.Decision != permission.Deny {
		t.Fatalf("config deny rule not applied: %+v", v)
	}
	t.Setenv("GANTRY_MODEL", "from-env")
	a = open(t, Options{Cwd: dir})
	if a.Model() != "from-env" {
		t.Fatalf("environment must win over config: %q", a.Model())
	}
	a = open(t, Options{Cwd: dir, Model: "from-flag", PermissionMode: "plan"})
	if a.Model() != "from-flag" || a.gate.Mode() != permission.ModePlan {
		t.Fatalf("flags must win: %q %q", a.Model(), a.gate.Mode())
	}
	if names := a.ToolNames(); slices.Contains(names, "bash") || slices.Contains(names, "write_file") || !slices.Contains(names, "read_file") {
		t.Fatalf("plan mode declares %v", names)
	}
}

func TestNoProviderIsOneSentence(t *testing.T) {
	dir := project(t, "", map[string]string{})
	t.Setenv("ANTHROPIC_API_KEY", "")
	t.Setenv("ANTHROPIC_BASE_URL", "")
	t.Setenv("OPENAI_BASE_URL", "")
	_, err := newStarted(Options{Cwd: dir}, func(face.Event) {}, face.NoHuman{})
	if err == nil || strings.Count(err.Error(), "\n") > 0 || !strings.Contains(err.Error(), "ANTHROPIC_API_KEY") {
		t.Fatalf("err = %v", err)
	}
	t.Setenv("GANTRY_PROVIDER", "openai")
	if _, err := newStarted(Options{Cwd: dir}, func(face.Event) {}, face.NoHuman{}); err == nil || !strings.Contains(err.Error(), "OPENAI_API_KEY") {
		t.Fatalf("openai without key: %v", err)
	}
	t.Setenv("GANTRY_PROVIDER", "bedrock")
	if _, err := newStarted(Options{Cwd: dir}, func(face.Event) {}, face.NoHuman{}); err == nil || !strings.Contains(err.Error(), `unknown provider "bedrock"`) {
		t.Fatalf("unknown provider: %v", err)
	}
}
