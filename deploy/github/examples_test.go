package github

import (
	"os"
	"strings"
	"testing"

	"github.com/goccy/go-yaml"
)

// exampleWorkflow is the part of a workflow file the examples' test reads.
type exampleWorkflow struct {
	On          map[string]any    `yaml:"on"`
	Permissions map[string]string `yaml:"permissions"`
	Concurrency struct {
		Group            string `yaml:"group"`
		CancelInProgress bool   `yaml:"cancel-in-progress"`
	} `yaml:"concurrency"`
	Jobs map[string]struct {
		Steps []struct {
			ID   string            `yaml:"id"`
			Uses string            `yaml:"uses"`
			With map[string]string `yaml:"with"`
		} `yaml:"steps"`
	} `yaml:"jobs"`
}

// The example workflows use the action with inputs it declares, ask for no more
// permissions than their events need, and run one at a time per issue or pull request.
func TestExampleWorkflows(t *testing.T) {
	a := loadAction(t)
	for _, c := range []struct {
		file        string
		events      []string
		permissions map[string]string
		group       string
	}{
		{"review.yml", []string{"pull_request"}, map[string]string{"contents": "read", "pull-requests": "write"}, "github.event.pull_request.number"},
		{"mention.yml", []string{"issue_comment", "pull_request_review_comment"},
			map[string]string{"contents": "read", "issues": "write", "pull-requests": "write"}, "github.event.issue.number || github.event.pull_request.number"},
	} {
		t.Run(c.file, func(t *testing.T) {
			b, err := os.ReadFile(c.file)
			if err != nil {
				t.Fatal(err)
			}
			var w exampleWorkflow
			if err := yaml.Unmarshal(b, &w); err != nil {
				t.Fatalf("%s: %v", c.file, err)
			}
			for _, e := range c.events {
				if _, ok := w.On[e]; !ok {
					t.Errorf("%s does not run on %s", c.file, e)
				}
			}
			if len(w.On) != len(c.events) {
				t.Errorf("%s runs on %v, want only %v", c.file, w.On, c.events)
			}
			if len(w.Permissions) != len(c.permissions) {
				t.Errorf("%s asks for the permissions %v, want %v", c.file, w.Permissions, c.permissions)
			}
			for k, v := range c.permissions {
				if w.Permissions[k] != v {
					t.Errorf("%s: permissions.%s is %q, want %q", c.file, k, w.Permissions[k], v)
				}
			}
			if !strings.Contains(w.Concurrency.Group, c.group) {
				t.Errorf("%s: the concurrency group %q is not per %s", c.file, w.Concurrency.Group, c.group)
			}
			uses := 0
			for _, j := range w.Jobs {
				for _, s := range j.Steps {
					if !strings.HasPrefix(s.Uses, "gantry-dev/gantry@") {
						continue
					}
					uses++
					for name := range s.With {
						if _, ok := a.Inputs[name]; !ok {
							t.Errorf("%s gives the action the input %s, which action.yml does not declare", c.file, name)
						}
					}
				}
			}
			if uses != 1 {
				t.Errorf("%s uses the action %d times, want once", c.file, uses)
			}
		})
	}
}
