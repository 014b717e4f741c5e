package github

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// actionFile is action.yml as GitHub reads a composite action's metadata; it is
// decoded strictly, so a misspelt key fails here before it fails on a runner.
type actionFile struct {
	Name        string `yaml:"name"`
	Description string `yaml:"description"`
	Author      string `yaml:"author"`
	Branding    struct {
		Icon  string `yaml:"icon"`
		Color string `yaml:"color"`
	} `yaml:"branding"`
	Inputs map[string]struct {
		Description string `yaml:"description"`
		Required    bool   `yaml:"required"`
		Default     string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Description string `yaml:"description"`
		Value       string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string `yaml:"using"`
		Steps []step `yaml:"steps"`
	} `yaml:"runs"`
}

type step struct {
	Name            string            `yaml:"name"`
	ID              string            `yaml:"id"`
	If              string            `yaml:"if"`
	Uses            string            `yaml:"uses"`
	With            map[string]string `yaml:"with"`
	Shell           string            `yaml:"shell"`
	Env             map[string]string `yaml:"env"`
	Run             string            `yaml:"run"`
	ContinueOnError bool              `yaml:"continue-on-error"`
}

func loadAction(t *testing.T) actionFile {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "action.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var a actionFile
	if err := yaml.UnmarshalWithOptions(b, &a, yaml.Strict()); err != nil {
		t.Fatalf("action.yml: %v", err)
	}
	return a
}

// stepRunning is the step whose run line runs the script deploy/github/<script>.
func (a actionFile) stepRunning(t *testing.T, script string) step {
	t.Helper()
	for _, s := range a.Runs.Steps {
		if strings.Contains(s.Run, "deploy/github/"+script) {
			return s
		}
	}
	t.Fatalf("no step of action.yml runs %s", script)
	return step{}
}

var (
	inputRef   = regexp.MustCompile(`inputs\.([A-Za-z0-9_-]+)`)
	inputVar   = regexp.MustCompile(`\bINPUT_[A-Z0-9_]+\b`)
	outputCall = regexp.MustCompile(`(?m)^\s*output ([a-z_]+) `)
	outputRef  = regexp.MustCompile(`^\$\{\{ steps\.run\.outputs\.([a-z_]+) \}\}$`)
)

// Every input action.yml declares is used by a step, every input a step uses is
// declared, every INPUT_* a script reads is set by the step that runs it (from the
// input of that name), and every output is one the run script writes.
func TestActionInputsAndOutputs(t *testing.T) {
	a := loadAction(t)
	if a.Runs.Using != "composite" {
		t.Errorf("runs.using is %q, want composite", a.Runs.Using)
	}
	used := map[string]bool{}
	for _, s := range a.Runs.Steps {
		texts := []string{s.If, s.Run}
		for _, v := range s.Env {
			texts = append(texts, v)
		}
		for _, v := range s.With {
			texts = append(texts, v)
		}
		for _, text := range texts {
			for _, m := range inputRef.FindAllStringSubmatch(text, -1) {
				used[m[1]] = true
				if _, ok := a.Inputs[m[1]]; !ok {
					t.Errorf("step %q uses inputs.%s, which action.yml does not declare", s.Name, m[1])
				}
			}
		}
	}
	for name := range a.Inputs {
		if !used[name] {
			t.Errorf("the input %s is declared but no step uses it", name)
		}
	}

	for _, script := range []string{"install.sh", "run.sh"} {
		s := a.stepRunning(t, script)
		b, err := os.ReadFile(script)
		if err != nil {
			t.Fatal(err)
		}
		read := map[string]bool{}
		for _, v := range inputVar.FindAllString(string(b), -1) {
			read[v] = true
			if _, ok := s.Env[v]; !ok {
				t.Errorf("%s reads %s, which its step %q does not set", script, v, s.Name)
			}
		}
		for k, v := range s.Env {
			name, ok := strings.CutPrefix(k, "INPUT_")
			if !ok {
				continue
			}
			if !read[k] {
				t.Errorf("step %q sets %s, which %s never reads", s.Name, k, script)
			}
			if want := "inputs." + strings.ToLower(name); !strings.Contains(v, want) {
				t.Errorf("step %q sets %s to %s, not from %s", s.Name, k, v, want)
			}
		}
	}

	run, err := os.ReadFile("run.sh")
	if err != nil {
		t.Fatal(err)
	}
	written := map[string]bool{}
	for _, m := range outputCall.FindAllStringSubmatch(string(run), -1) {
		written[m[1]] = true
	}
	for name, o := range a.Outputs {
		m := outputRef.FindStringSubmatch(o.Value)
		if m == nil || m[1] != name {
			t.Errorf("the output %s is %q, want ${{ steps.run.outputs.%s }}", name, o.Value, name)
			continue
		}
		if !written[name] {
			t.Errorf("the output %s is never written by run.sh", name)
		}
	}
	for name := range written {
		if _, ok := a.Outputs[name]; !ok {
			t.Errorf("run.sh writes the output %s, which action.yml does not declare", name)
		}
	}
}

// workflow is what the test's evaluator knows of a workflow run: the inputs given
// (over their defaults), the github context, the workflow's env and earlier steps'
// outputs.
type workflow struct {
	inputs map[string]string
	github map[string]string
	env    map[string]string
	steps  map[string]map[string]string
}

var expr = regexp.MustCompile(`^\$\{\{\s*(.*?)\s*\}\}$`)

// eval gives a value of action.yml as GitHub would: a literal as it is, or one
// ${{ … }} expression made of references and string literals joined by ||, the
// first that is not empty winning. Anything else fails the test: the evaluator is
// the test's, and knows no more of GitHub's expressions than action.yml needs.
func (c workflow) eval(t *testing.T, v string) string {
	t.Helper()
	m := expr.FindStringSubmatch(v)
	if m == nil {
		if strings.Contains(v, "${{") {
			t.Fatalf("the test cannot evaluate %q", v)
		}
		return v
	}
	for _, operand := range strings.Split(m[1], "||") {
		if s := c.ref(t, strings.TrimSpace(operand)); s != "" {
			return s
		}
	}
	return ""
}

func (c workflow) ref(t *testing.T, r string) string {
	t.Helper()
	if len(r) >= 2 && r[0] == '\'' && r[len(r)-1] == '\'' {
		return r[1 : len(r)-1]
	}
	parts := strings.Split(r, ".")
	switch {
	case len(parts) == 2 && parts[0] == "inputs":
		return c.inputs[parts[1]]
	case len(parts) == 2 && parts[0] == "github":
		return c.github[parts[1]]
	case len(parts) == 2 && parts[0] == "env":
		return c.env[parts[1]]
	case len(parts) == 4 && parts[0] == "steps" && parts[2] == "outputs":
		return c.steps[parts[1]][parts[3]]
	}
	t.Fatalf("the test cannot evaluate the reference %q", r)
	return ""
}

// stepEnv is the environment action.yml gives the step: its env evaluated, as
// NAME=value lines, sorted.
func (a actionFile) stepEnv(t *testing.T, s step, with map[string]string, c workflow) []string {
	t.Helper()
	c.inputs = map[string]string{}
	for name, in := range a.Inputs {
		c.inputs[name] = c.eval(t, in.Default)
	}
	for name, v := range with {
		if _, ok := a.Inputs[name]; !ok {
			t.Fatalf("the test gives the input %s, which action.yml does not declare", name)
		}
		c.inputs[name] = v
	}
	var out []string
	for k, v := range s.Env {
		out = append(out, fmt.Sprintf("%s=%s", k, c.eval(t, v)))
	}
	sort.Strings(out)
	return out
}

// The evaluator reads what action.yml writes: defaults, ||, step outputs.
func TestEvaluatorReadsTheRunStep(t *testing.T) {
	a := loadAction(t)
	c := workflow{
		github: map[string]string{"token": "tok", "workspace": "/w"},
		env:    map[string]string{"OPENAI_API_KEY": "from-env"},
		steps:  map[string]map[string]string{"download": {"path": "/d/gantry"}},
	}
	env := strings.Join(a.stepEnv(t, a.stepRunning(t, "run.sh"), map[string]string{"anthropic_api_key": "ak"}, c), "\n")
	for _, want := range []string{"INPUT_GITHUB_TOKEN=tok", "INPUT_WORKING_DIRECTORY=/w", "GANTRY_BIN=/d/gantry",
		"ANTHROPIC_API_KEY=ak", "OPENAI_API_KEY=from-env", "INPUT_TRIGGER_PHRASE=@gantry"} {
		if !strings.Contains(env+"\n", want+"\n") {
			t.Errorf("the run step's env lacks %s:\n%s", want, env)
		}
	}
}
