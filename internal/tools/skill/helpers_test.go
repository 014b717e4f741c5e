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
	return withoutBuiltins(catalogAll(t, dirs...))
}

// withoutBuiltins drops the built-in skills.
func withoutBuiltins(skills []Skill) []Skill {
	var user []Skill
	for _, s := range skills {
		if !IsBuiltin(s) {
			user = append(user, s)
		}
	}
	return user
}

// catalogAll runs Catalog and fails the test on a notice.
func catalogAll(t *testing.T, dirs ...string) []Skill {
	t.Helper()
	skills, notices := Catalog(dirs...)
	if len(notices) > 0 {
		t.Fatalf("notices: %q", notices)
	}
	return skills
}

// readSkill decodes args for read_skill over skills and runs it.
func readSkill(t *testing.T, skills []Skill, maxOutput int, args string) tool.Result {
	t.Helper()
	return readSkillWith(t, skills, Options{MaxOutput: maxOutput}, args)
}

// readSkillWith is readSkill with all the options.
func readSkillWith(t *testing.T, skills []Skill, o Options, args string) tool.Result {
	t.Helper()
	inv, msg := Tool(skills, o).Decode(tool.Env{}, []byte(args))
	if msg != "" {
		t.Fatalf("refused %s: %s", args, msg)
	}
	return inv.Run(t.Context())
}
