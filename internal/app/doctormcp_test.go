package app

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm/scripted"
)

// gantry doctor says what a session does with each MCP server and agent definition,
// in the session's own sentences: a server whose ${VAR} is not set, one using VS
// Code's ${input:name} and one with only a link are not started, with the notice the
// session gives; a server with a url and no type is labelled http; an agent whose
// tools gantry has not is named with them. The files are in the shapes real projects
// write (a VS Code-style Jenkins server, a link-only hosted server).
func TestDoctorSaysWhatTheSessionDoesWithMCPServers(t *testing.T) {
	commandHomes(t)
	t.Setenv("GANTRY_TEST_NO_KEY", "")
	os.Unsetenv("GANTRY_TEST_NO_KEY")
	dir := project(t, "", map[string]string{
		".mcp.json": `{
  "mcpServers": {
    "sandbox": {
      "type": "stdio",
      "command": "/nonexistent/sandbox-server",
      "env": {
        "SANDBOX_API_KEY": "${GANTRY_TEST_NO_KEY}"
      }
    },
    "ci": {
      "type": "http",
      "url": "http://127.0.0.1:9/mcp-server/stateless",
      "headers": {
        "Authorization": "Basic ${input:ci-basic-auth}"
      }
    },
    "hosted": {
      "link": "https://mcp.example.com/mcp"
    },
    "copilot": {
      "link": "https://github.com/example/mcp-server.git",
      "url": "http://127.0.0.1:9/mcp/"
    }
  }
}
`,
		".claude/agents/lead.md": "---\nname: lead\ndescription: Leads a team of agents\ntools: Read, Grep, TaskGet, TaskUpdate, TaskList, SendMessage, Task, TodoWrite, BashOutput, KillShell\n---\nLead.\n",
	})
	rows, err := Doctor(dir)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	for _, r := range rows {
		b.WriteString(r.Value + "\n")
	}
	doctor := b.String()

	mcpJSON := filepath.Join(dir, ".mcp.json")
	agent := filepath.Join(dir, ".claude", "agents", "lead.md")
	sentences := []string{
		mcpJSON + `:3: MCP server "sandbox" needs the environment variable GANTRY_TEST_NO_KEY, which is not set (${GANTRY_TEST_NO_KEY:-value} gives it a default), so it was not started.`,
		mcpJSON + `:10: MCP server "ci" uses ${input:ci-basic-auth}, VS Code's syntax for a value VS Code asks for, which gantry cannot fill (write the value, or ${VAR} of an environment variable, in its place), so it was not started.`,
		mcpJSON + `:17: MCP server "hosted" needs a command (a stdio server) or a url (an HTTP server); its link (https://mcp.example.com/mcp) is not read as one (rename the key url if that is the server's address), so it was not started.`,
	}
	for _, s := range sentences {
		if !strings.Contains(doctor, "not started: "+s+"\n") {
			t.Errorf("doctor lacks %q:\n%s", s, doctor)
		}
	}
	toolsSentence := "The agent definition " + agent + " names tools gantry does not have (TaskGet, TaskUpdate, TaskList, SendMessage); it runs without them."
	for _, want := range []string{
		"copilot (http) from " + mcpJSON + ":20\n",
		"lead: " + agent + "\n",
		toolsSentence + "\n",
	} {
		if !strings.Contains(doctor, want) {
			t.Errorf("doctor lacks %q:\n%s", want, doctor)
		}
	}
	for _, not := range []string{"sandbox (stdio)", "ci (http)", "hosted (stdio)", "input:ci-basic-auth:-value"} {
		if strings.Contains(doctor, not) {
			t.Errorf("doctor has %q:\n%s", not, doctor)
		}
	}

	// The session gives the same sentences.
	var mu sync.Mutex
	var notices []string
	a, err := newStarted(Options{Cwd: dir, LLM: scripted.New(), PermissionMode: "yolo"}, func(e face.Event) {
		if n, ok := e.(face.Notice); ok {
			mu.Lock()
			notices = append(notices, n.Text)
			mu.Unlock()
		}
	}, face.NoHuman{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	mu.Lock()
	defer mu.Unlock()
	for _, s := range append(sentences, toolsSentence) {
		found := false
		for _, n := range notices {
			found = found || strings.Contains(n, s)
		}
		if !found {
			t.Errorf("the session did not say %q; it said %q", s, notices)
		}
	}
}
