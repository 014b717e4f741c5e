// Package github holds the tests of gantry's GitHub Action (action.yml at the
// repository's root, its scripts here): they run the scripts for real against fake
// event payloads, a fake GitHub API and the fake model, with a gantry the action's
// own build step makes from this checkout. The package has no code of its own.
package github

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// root is the repository's root, where action.yml is.
const root = "../.."

// gantryBin is the gantry the action's build step made for the whole run.
var gantryBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gantry-action-")
	if err != nil {
		panic(err)
	}
	bin, err := buildWithTheAction(dir)
	if err != nil {
		os.RemoveAll(dir)
		panic(err)
	}
	gantryBin = bin
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// buildWithTheAction runs install.sh build as the action's build step does, with
// RUNNER_TEMP in dir, and returns the path the step gives as its output. The build
// is without cgo (CGO_ENABLED=0, which the script honours): the structural tools,
// which need it, play no part here, and the build stays quick.
func buildWithTheAction(dir string) (string, error) {
	out := filepath.Join(dir, "output")
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bash", filepath.Join(abs, "deploy/github/install.sh"), "build")
	cmd.Env = append(os.Environ(), "RUNNER_TEMP="+dir, "GITHUB_OUTPUT="+out, "ACTION_PATH="+abs, "CGO_ENABLED=0")
	if b, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("install.sh build: %v\n%s", err, b)
	}
	outputs, err := readOutputs(out)
	if err != nil {
		return "", err
	}
	if outputs["path"] == "" {
		return "", fmt.Errorf("install.sh build gave no path: %v", outputs)
	}
	return outputs["path"], nil
}

// readOutputs parses a $GITHUB_OUTPUT file: name=value lines and name<<DELIM blocks.
func readOutputs(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return map[string]string{}, nil
		}
		return nil, err
	}
	out := map[string]string{}
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		line := lines[i]
		if line == "" {
			continue
		}
		if name, delim, ok := strings.Cut(line, "<<"); ok && !strings.Contains(name, "=") {
			var val []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				val = append(val, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("%s: the block of %s never ends with %s", path, name, delim)
			}
			out[name] = strings.Join(val, "\n")
			continue
		}
		name, val, ok := strings.Cut(line, "=")
		if !ok {
			return nil, fmt.Errorf("%s: a line that is no output: %q", path, line)
		}
		out[name] = val
	}
	return out, nil
}
