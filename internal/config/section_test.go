package config

import (
	"maps"
	"slices"
	"strings"
	"testing"
)

// demo is a section registered by the tests, as a tool family registers its own
// (internal/tools/lsptool/config.go is a real one): a bound, rows by name, a
// program to hold back, a plugin's language servers taken as rows.
type demoConfig struct {
	Level int
	Rows  map[string]demoRow
}

type demoRow struct {
	Command    string   `yaml:"command,omitempty"`
	Extensions []string `yaml:"extensions,omitempty"`
}

type demoFile struct {
	Level *int               `yaml:"level"`
	Rows  map[string]demoRow `yaml:"rows"`
}

func (f *demoFile) Check(c Checker) {
	if f.Level != nil && (*f.Level < 1 || *f.Level > 9) {
		c.At("level").Fail("must be between 1 and 9, not %d", *f.Level)
	}
	for name, r := range f.Rows {
		for i, e := range r.Extensions {
			if !strings.HasPrefix(e, ".") {
				c.At("rows", name, "extensions").Item(i).Fail("must start with a dot, not %q", e)
			}
		}
	}
}

func (f *demoFile) Merge(into *demoConfig) {
	if f.Level != nil {
		into.Level = *f.Level
	}
	for n, r := range f.Rows {
		if into.Rows == nil {
			into.Rows = map[string]demoRow{}
		}
		into.Rows[n] = r
	}
}

func (f *demoFile) HoldPrograms() []string {
	var out []string
	for _, n := range slices.Sorted(maps.Keys(f.Rows)) {
		out = append(out, "rows."+n+": "+f.Rows[n].Command)
	}
	f.Rows = nil
	return out
}

var demoSection = RegisterSection[demoConfig, *demoFile](SectionDef[demoConfig]{
	Key: "demo", Doc: "A section of the tests.",
	Default: func() demoConfig { return demoConfig{Level: 3} },
	FromPlugin: func(into *demoConfig, p *Plugin) []string {
		var skipped []string
		for _, n := range slices.Sorted(maps.Keys(p.LSPServers)) {
			if _, taken := into.Rows[n]; taken {
				skipped = append(skipped, "its language server "+n+" was left out: a server of that name is configured already")
				continue
			}
			if into.Rows == nil {
				into.Rows = map[string]demoRow{}
			}
			into.Rows[n] = demoRow{Command: p.LSPServers[n].Command}
		}
		return skipped
	},
})

// A registered section's keys are checked like gantry's own: its validation's
// problems and the decoder's (an unknown key with a suggestion, a value of the
// wrong type) name the file, the line and the key; a file's first problem is
// reported wherever it is.
func TestSectionErrors(t *testing.T) {
	for _, c := range []struct{ yaml, want string }{
		{"model: m\ndemo:\n  level: 12\n", `/p/config.yaml:3: key "demo.level" must be between 1 and 9, not 12`},
		{"demo:\n  rows:\n    a:\n      command: x\n      extensions: [.go, go]\n",
			`/p/config.yaml:5: key "demo.rows.a.extensions[1]" must start with a dot, not "go"`},
		{"demo:\n  levle: 2\n", `/p/config.yaml:2: unknown key "demo.levle"; did you mean "level"?`},
		{"demo:\n  rows:\n    a:\n      comand: x\n", `/p/config.yaml:4: unknown key "demo.rows.a.comand"; did you mean "command"?`},
		{"demo:\n  level: high\n", `/p/config.yaml:2: key "demo.level" must be an integer`},
		{"demo:\n  level: '4'\n", `/p/config.yaml:2: key "demo.level" must be an integer`},
		{"demo: 3\n", `/p/config.yaml:1: key "demo" must be a mapping`},
		{"demo:\n  levle: 2\nmaxOutptu: 3\n", `/p/config.yaml:2: unknown key "demo.levle"`},
		{"dmeo:\n  level: 2\n", `/p/config.yaml:1: unknown key "dmeo"; did you mean "demo"?`},
	} {
		_, err := parse("/p/config.yaml", []byte(c.yaml))
		if err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q:\n got %v\nwant %s", c.yaml, err, c.want)
		}
	}
}

// A section's value is its default until a file sets it; the user's file and the
// project's merge as the section says; an anchor reaches into a section; a Config
// made by hand has the default, and Set changes one Config only.
func TestSectionMerge(t *testing.T) {
	e := newEnv(t)
	if got := demoSection.Of(Default()); got.Level != 3 || got.Rows != nil {
		t.Fatalf("default %+v", got)
	}
	e.userFile(t, "demo:\n  level: 5\n  rows:\n    a:\n      command: ua\n    b:\n      command: ub\n")
	e.projectFile(t, "skillsDir: &exts [.go]\ndemo:\n  rows:\n    a:\n      command: pa\n      extensions: *exts\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	got := demoSection.Of(c)
	if got.Level != 5 || got.Rows["a"].Command != "pa" || got.Rows["a"].Extensions[0] != ".go" || got.Rows["b"].Command != "ub" {
		t.Errorf("merged %+v", got)
	}
	if got := demoSection.Of(&Config{}); got.Level != 3 {
		t.Errorf("a Config made by hand: %+v", got)
	}
	d := *c
	demoSection.Set(&d, demoConfig{Level: 7})
	if demoSection.Of(&d).Level != 7 || demoSection.Of(c).Level != 5 {
		t.Errorf("Set: copy %d, original %d", demoSection.Of(&d).Level, demoSection.Of(c).Level)
	}
}

// A section's programs in an untrusted project's file are held back under the
// section's key; the user's are not.
func TestSectionHeld(t *testing.T) {
	e := newEnv(t)
	e.userFile(t, "demo:\n  rows:\n    a:\n      command: mine\n")
	e.projectFile(t, "demo:\n  level: 4\n  rows:\n    z:\n      command: evil\n")
	c, err := LoadHeld(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(c.Held().Programs, "|"); got != "demo.rows.z: evil" {
		t.Errorf("held %q", got)
	}
	if got := demoSection.Of(c); got.Level != 4 || len(got.Rows) != 1 || got.Rows["a"].Command != "mine" {
		t.Errorf("value %+v", got)
	}
}

// The registered sections describe their keys, for docs/config.md.
func TestSectionsDescribed(t *testing.T) {
	i := slices.IndexFunc(Sections(), func(s SectionInfo) bool { return s.Key == "demo" })
	if i < 0 {
		t.Fatalf("sections %+v", Sections())
	}
	want := []string{"demo.level", "demo.rows", "demo.rows.*.command", "demo.rows.*.extensions"}
	if got := Sections()[i].Keys; !slices.Equal(got, want) {
		t.Errorf("keys %v, want %v", got, want)
	}
}
