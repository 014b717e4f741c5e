package app

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
	"github.com/gantry-dev/gantry/internal/tool"
	"github.com/gantry-dev/gantry/internal/tools/skill"
)

// readSkillText runs the session's read_skill with args, as the model's call would.
func readSkillText(t *testing.T, a *App, args string) string {
	t.Helper()
	rs, ok := a.agent.Tools.Lookup("read_skill")
	if !ok {
		t.Fatal("no read_skill")
	}
	inv, msg := rs.Decode(tool.Env{Cwd: a.opts.Cwd}, []byte(args))
	if msg != "" {
		t.Fatalf("read_skill refused %s: %s", args, msg)
	}
	r := inv.Run(t.Context())
	if r.IsError {
		t.Fatalf("read_skill %s: %s", args, r.Text)
	}
	return r.Text
}

// inlined is the body of the <skill name="name"> block of an expanded prompt.
func inlined(t *testing.T, expanded, name string) string {
	t.Helper()
	_, rest, ok := strings.Cut(expanded, "<skill name=\""+name+"\">\n")
	body, _, closed := strings.Cut(rest, "</skill>")
	if !ok || !closed {
		t.Fatalf("no skill %s in %q", name, expanded[:min(300, len(expanded))])
	}
	return body
}

// A skill named as @skill:name or as /name is inlined as read_skill gives it — the
// line naming its folder first, so that the files beside it can be read — one text
// for the three.
func TestSkillReferenceAndCommandCarryTheFolder(t *testing.T) {
	commandHomes(t)
	dir := project(t, "", map[string]string{
		".gantry/skills/forms/SKILL.md":  "---\nname: forms\ndescription: Fill forms.\n---\n# Forms\n\nRead FIELDS.md beside this file, then fill $ARGUMENTS.\n",
		".gantry/skills/forms/FIELDS.md": "Field one: the name.\n",
	})
	a := open(t, Options{Cwd: dir, LLM: scripted.New()})
	base := filepath.Join(dir, ".gantry", "skills", "forms")
	want := readSkillText(t, a, `{"name": "forms", "arguments": "the tax form"}`)
	if !strings.HasPrefix(want, "Base directory for this skill: "+base+"\n\n---\nname: forms") {
		t.Fatalf("read_skill: %q", want)
	}
	for _, prompt := range []string{"@skill:forms the tax form", "/forms the tax form"} {
		expanded, notes := a.ExpandPrompt(prompt)
		if len(notes) > 0 {
			t.Fatalf("%s: notes %q", prompt, notes)
		}
		if got := inlined(t, expanded, "forms"); got != want {
			t.Errorf("%s inlines\n%q\nnot read_skill's\n%q", prompt, got, want)
		}
	}
	if expanded, _ := a.ExpandPrompt("/forms"); !strings.HasPrefix(expanded, "@skill:forms Follow this skill.\n\n<skill ") {
		t.Errorf("/forms alone: %q", expanded[:min(80, len(expanded))])
	}
	if expanded, _ := a.ExpandPrompt("/nosuch thing"); expanded != "/nosuch thing" {
		t.Errorf("a /name that is no skill changed: %q", expanded)
	}
}

// writeLongSkill writes a skill of about size characters shaped like Anthropic's
// claude-api: a title and an introduction, then `## ` sections of about 1,900
// characters. It returns the text and the sections' titles.
func writeLongSkill(t *testing.T, path string, size int) (string, []string) {
	t.Helper()
	var b strings.Builder
	fmt.Fprintf(&b, "---\nname: %s\ndescription: Build apps with the API.\n---\n", filepath.Base(filepath.Dir(path)))
	b.WriteString("# Building with the API\n\nRead the section you need.\n\n")
	var titles []string
	for i := 1; b.Len() < size; i++ {
		titles = append(titles, fmt.Sprintf("Language %d", i))
		fmt.Fprintf(&b, "## Language %d\n\n", i)
		for j := 0; j < 24; j++ {
			fmt.Fprintf(&b, "Step %d.%d: call the endpoint with the right parameters and check the answer.\n", i, j)
		}
		b.WriteString("\n")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return b.String(), titles
}

// A skill of 60,000 characters is inlined whole by @skill: in a session bounded at
// 30,000 characters per tool result; one over skill.WholeBound is inlined as its
// start and the table of its parts, one of which read_skill gives whole.
func TestLongSkillThroughExpandPrompt(t *testing.T) {
	commandHomes(t)
	dir := project(t, "maxOutput: 30000\n", map[string]string{})
	short, _ := writeLongSkill(t, filepath.Join(dir, ".gantry", "skills", "api", "SKILL.md"), 60000)
	long, titles := writeLongSkill(t, filepath.Join(dir, ".gantry", "skills", "huge", "SKILL.md"), skill.DefaultWhole+30000)
	a := open(t, Options{Cwd: dir, LLM: scripted.New()})

	expanded, notes := a.ExpandPrompt("use @skill:api")
	body := inlined(t, expanded, "api")
	if len(notes) > 0 || body != "Base directory for this skill: "+filepath.Join(dir, ".gantry", "skills", "api")+"\n\n"+short {
		t.Fatalf("not whole: %d characters of %d (notes %q)", len(body), len(short), notes)
	}

	expanded, _ = a.ExpandPrompt("use @skill:huge")
	body = inlined(t, expanded, "huge")
	if n := utf8.RuneCountInString(body); n > skill.DefaultWhole || strings.Contains(body, "## "+titles[0]+"\n") {
		t.Fatalf("%d characters, or a part inlined", n)
	}
	if !strings.Contains(body, fmt.Sprintf("[This skill has %d characters", utf8.RuneCountInString(long))) ||
		!strings.Contains(body, fmt.Sprintf("\n%d. %s (", len(titles), titles[len(titles)-1])) {
		t.Fatalf("no table of parts: %q", body[max(0, len(body)-400):])
	}
	part := readSkillText(t, a, fmt.Sprintf(`{"name": "huge", "part": %q}`, strings.ToLower(titles[1])))
	_, after, _ := strings.Cut(long, "## "+titles[1]+"\n")
	section, _, _ := strings.Cut(after, "## ")
	if !strings.HasSuffix(part, "\n\n## "+titles[1]+"\n"+section) {
		t.Fatalf("part 2: %q", part)
	}
}

// inTurnAsker asks the folder's trust at the first prompt, as the editors' face does.
type inTurnAsker struct{ trustAsker }

func (*inTurnAsker) TrustInTurn() bool { return true }

// A plugin the project enables brings its skills when the person trusts the folder
// mid-session: read_skill, @skill: and /name find them in that turn; the model is
// told of them once, in a reminder stored with the prompt, and read_skill's
// declaration — part of the cached prefix — does not change.
func TestProjectPluginSkillsAfterATrustInTurn(t *testing.T) {
	commandHomes(t)
	plug := filepath.Join(t.TempDir(), "demo-plugin")
	for name, body := range map[string]string{
		".claude-plugin/plugin.json": `{"name": "demo", "description": "A demo plugin"}`,
		"skills/greet/SKILL.md":      "---\nname: greet\ndescription: Greets politely\n---\nGreet with the words in ${CLAUDE_SKILL_DIR}/words.md.\n",
		"skills/greet/words.md":      "Good morning.\n",
	} {
		p := filepath.Join(plug, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	dir := project(t, "plugins: ["+plug+"]\n", map[string]string{})
	if err := os.WriteFile(filepath.Join(os.Getenv("GANTRY_CONFIG_DIR"), "config.yaml"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	// The system prompt (with its list of deferred tools) and the tools declared,
	// request by request: the cached prefix.
	var prefixes []string
	spec := func(req llm.Request) {
		mu.Lock()
		defer mu.Unlock()
		prefix := req.System
		for _, s := range req.Tools {
			prefix += "\n" + s.Name + ": " + s.Description
		}
		prefixes = append(prefixes, prefix)
	}
	p := scripted.New(
		scripted.Step{Func: func(req llm.Request) scripted.Step {
			spec(req)
			return scripted.Step{Calls: []scripted.Call{{ID: "skill", Name: "read_skill", Input: `{"name":"demo:greet"}`}}}
		}},
		scripted.Step{Func: func(req llm.Request) scripted.Step { spec(req); return scripted.Step{Text: "done"} }},
		scripted.Step{Func: func(req llm.Request) scripted.Step { spec(req); return scripted.Step{Text: "again"} }},
	)
	a, err := newStarted(Options{Cwd: dir, LLM: p}, func(face.Event) {}, &inTurnAsker{trustAsker{yes: true}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	has := func() bool {
		return slices.ContainsFunc(a.Skills(), func(s skill.Skill) bool { return s.Name == "demo:greet" })
	}
	if has() || a.FolderTrust().Trusted() {
		t.Fatal("the project's plugin's skill is there before the trust")
	}
	if expanded, _ := a.ExpandPrompt("/demo:greet"); expanded != "/demo:greet" {
		t.Fatalf("expanded before the trust: %q", expanded)
	}
	rs, _ := a.agent.Tools.Lookup("read_skill")
	before := rs.Spec().Description

	if end := a.Run(context.Background(), "hello", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if !a.FolderTrust().Trusted() || !has() {
		t.Fatalf("after the trust: trusted %v, skills %v", a.FolderTrust().Trusted(), a.Skills())
	}
	got, isErr := resultOf(t, p, "skill")
	words := filepath.Join(plug, "skills", "greet", "words.md")
	if isErr || !strings.HasPrefix(got, "Base directory for this skill: "+filepath.Join(plug, "skills", "greet")+"\n") || !strings.Contains(got, "the words in "+words) {
		t.Fatalf("read_skill demo:greet in the turn of the trust: %q (error %v)", got, isErr)
	}
	reqs := p.Requests()
	reminder := "<system-reminder>The folder was trusted, so these skills can be loaded with read_skill too, as those of its description:\n demo:greet — Greets politely\n</system-reminder>"
	if first := userText(reqs[0]); !strings.Contains(first, reminder) {
		t.Fatalf("the first prompt does not tell of the new skill: %q", first)
	}
	expanded, notes := a.ExpandPrompt("/demo:greet")
	if len(notes) > 0 || inlined(t, expanded, "demo:greet") != got+"\nARGUMENTS: Follow this skill.\n" {
		t.Fatalf("/demo:greet after the trust: %q, notes %q", expanded, notes)
	}

	if end := a.Run(context.Background(), "hello again", nil); end.StopReason != "end_turn" {
		t.Fatalf("end %+v", end)
	}
	if last := p.Requests()[2]; strings.Contains(userText(last), "The folder was trusted") {
		t.Errorf("the reminder was given twice: %q", userText(last))
	}
	if rs.Spec().Description != before || strings.Contains(before, "demo:greet") {
		t.Errorf("read_skill's description changed: %q", rs.Spec().Description)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(prefixes) != 3 || prefixes[1] != prefixes[0] || prefixes[2] != prefixes[0] || strings.Contains(prefixes[0], "demo:greet") {
		t.Errorf("the system prompt or the tools declared changed between requests: %q", prefixes)
	}
	history := 0
	for _, m := range a.agent.History() {
		if m.Role == llm.RoleUser && strings.Contains(m.Text(), reminder) {
			history++
		}
	}
	if history != 1 {
		t.Errorf("the reminder is stored %d times", history)
	}
}
