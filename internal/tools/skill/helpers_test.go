package skill

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// write creates dir/rel with content, making its folders.
func write(t *testing.T, dir, rel, content string) string {
	t.Helper()
	p := filepath.Join(dir, rel)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// catalog runs Catalog, fails the test on an error and drops the built-in skills, which
// builtin_test.go checks.
func catalog(t *testing.T, dirs ...string) []Skill {
	t.Helper()
	var user []Skill
	for _, s := range catalogAll(t, dirs...) {
		if !IsBuiltin(s) {
			user = append(user, s)
		}
	}
	return user
}

// catalogAll runs Catalog and fails the test on an error.
func catalogAll(t *testing.T, dirs ...string) []Skill {
	t.Helper()
	skills, err := Catalog(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	return skills
}

// readSkill decodes args for read_skill over skills and runs it.
func readSkill(t *testing.T, skills []Skill, maxOutput int, args string) tool.Result {
	t.Helper()
	inv, msg := Tool(skills, maxOutput).Decode(tool.Env{}, []byte(args))
	if msg != "" {
		t.Fatalf("refused %s: %s", args, msg)
	}
	return inv.Run(t.Context())
}
