package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
)

// environ is this process's environment with the model server's address and key set.
func environ(url string, extra ...string) []string {
	return append(os.Environ(), append([]string{"ANTHROPIC_BASE_URL=" + url, "ANTHROPIC_API_KEY=bench", "NO_COLOR=1"}, extra...)...)
}

// gantryAgent runs gantry -p in yolo mode, with a data and config folder of its own
// kept across rounds, as a user's are.
func gantryAgent(bin, work string) agent {
	return agent{
		name: "gantry",
		bin:  bin,
		command: func(bin, url, dir, prompt string) *exec.Cmd {
			cmd := exec.Command(bin, "-p", prompt, "--permission-mode", "yolo")
			cmd.Dir = dir
			cmd.Env = environ(url, "GANTRY_PROVIDER=anthropic",
				"GANTRY_DATA_DIR="+filepath.Join(work, "gantry-data"), "GANTRY_CONFIG_DIR="+filepath.Join(work, "gantry-config"))
			cmd.Stderr = new(bytes.Buffer)
			return cmd
		},
		edit: func(string) (string, string) {
			return "edit_file", `{"path":"calc.go","edits":[{"old":"a - b","new":"a + b"}]}`
		},
		bash: func(command string) (string, string) { return "bash", `{"command":` + quote(command) + `}` },
	}
}

// floorAgent runs bench/refagent.
func floorAgent(bin string) agent {
	return agent{
		name: "floor",
		bin:  bin,
		command: func(bin, url, dir, prompt string) *exec.Cmd {
			cmd := exec.Command(bin, prompt)
			cmd.Dir, cmd.Env, cmd.Stderr = dir, environ(url), new(bytes.Buffer)
			return cmd
		},
		edit: func(dir string) (string, string) {
			return "edit", `{"file_path":` + quote(filepath.Join(dir, "calc.go")) + `,"old_string":"a - b","new_string":"a + b"}`
		},
		bash: func(command string) (string, string) { return "bash", `{"command":` + quote(command) + `}` },
	}
}

// crushAgent runs crush run --yolo with a crush.json in the project that names the fake
// server as an Anthropic-compatible provider (crush's README, "Custom providers"), and
// a data folder inside the project.
func crushAgent(bin string) agent {
	return agent{
		name: "crush",
		bin:  bin,
		command: func(bin, url, dir, prompt string) *exec.Cmd {
			model := map[string]any{"id": "claude-sonnet-4-5", "name": "bench", "context_window": 200000, "default_max_tokens": 8192}
			cfg := map[string]any{
				"providers": map[string]any{"bench": map[string]any{"type": "anthropic", "base_url": url, "api_key": "bench", "models": []any{model}}},
				"models": map[string]any{
					"large": map[string]any{"model": "claude-sonnet-4-5", "provider": "bench"},
					"small": map[string]any{"model": "claude-sonnet-4-5", "provider": "bench"},
				},
				"options": map[string]any{"data_directory": ".crush", "disable_provider_auto_update": true},
			}
			data, err := json.Marshal(cfg)
			check(err)
			check(os.WriteFile(filepath.Join(dir, "crush.json"), data, 0o644))
			cmd := exec.Command(bin, "run", "--quiet", prompt) // crush run approves its own session's calls
			cmd.Dir, cmd.Env, cmd.Stderr = dir, environ(url, "CRUSH_DISABLE_METRICS=1"), new(bytes.Buffer)
			return cmd
		},
		edit: func(dir string) (string, string) {
			return "edit", `{"file_path":` + quote(filepath.Join(dir, "calc.go")) + `,"old_string":"a - b","new_string":"a + b"}`
		},
		bash: func(command string) (string, string) {
			return "bash", `{"command":` + quote(command) + `,"description":"Run the tests"}`
		},
		read: func(dir string) (string, string) {
			return "view", `{"file_path":` + quote(filepath.Join(dir, "calc.go")) + `}`
		},
	}
}
