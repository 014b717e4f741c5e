package skill

import (
	"reflect"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

// A Set keeps the first skill of a name, lists its skills by name, and tells which of
// those given it added.
func TestSetAddsNewNamesOnly(t *testing.T) {
	t.Parallel()
	s := NewSet([]Skill{{Name: "b", Path: "/b1"}, {Name: "a"}})
	added := s.Add([]Skill{{Name: "b", Path: "/b2"}, {Name: "d"}, {Name: "c"}})
	if names(added) != "c d" || names(s.List()) != "a b c d" {
		t.Fatalf("added %q, list %q", names(added), names(s.List()))
	}
	if b, ok := s.Find("b"); !ok || b.Path != "/b1" {
		t.Fatalf("b is %+v", b)
	}
	if _, ok := s.Find("e"); ok {
		t.Fatal("found a skill never added")
	}
	var none *Set
	if _, ok := none.Find("a"); ok || none.List() != nil {
		t.Fatal("a nil Set holds skills")
	}
}

// read_skill over a Set reads a skill added after it was made, while its description
// keeps the list it was made with (the declared tools do not change mid-session).
func TestReadSkillFindsASkillAddedLater(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write(t, dir, "first.md", "First.\n")
	write(t, dir, "later.md", "Later.\n")
	all := catalog(t, dir)
	set := NewSet(all[:1])
	rs := ToolOf(set, Options{})
	before := rs.Spec().Description
	if got := set.Add(all[1:]); !reflect.DeepEqual(got, all[1:]) {
		t.Fatalf("added %+v", got)
	}
	inv, msg := rs.Decode(tool.Env{}, []byte(`{"name": "later"}`))
	if msg != "" {
		t.Fatal(msg)
	}
	if res := inv.Run(t.Context()); res.IsError || !strings.HasSuffix(res.Text, "\n\nLater.\n") {
		t.Fatalf("got %q", res.Text)
	}
	if rs.Spec().Description != before || strings.Contains(before, "later") {
		t.Fatalf("the description changed: %q", rs.Spec().Description)
	}
}

func names(skills []Skill) string {
	n := make([]string, len(skills))
	for i, s := range skills {
		n[i] = s.Name
	}
	return strings.Join(n, " ")
}
