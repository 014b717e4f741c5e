package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/tool"
)

// `gantry tool NAME` prints what the model would read: 1.29 MB of bash output becomes
// a command's preview naming the file, in the standalone outputs folder of gantry's
// data folder, that holds the whole output; `gantry tool read_file` reads a range of
// it, a deny rule of every absolute read notwithstanding; --raw prints it whole.
func TestToolCommandPrintsWhatTheModelReads(t *testing.T) {
	dir := t.TempDir()
	environ := env(t)
	var data string
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GANTRY_DATA_DIR="); ok {
			data = v
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, ".gantry"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, ".gantry", "permissions.yaml"), []byte("permissions:\n  deny:\n    - \"read_file:/.*\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var whole strings.Builder
	for i := 1; i <= 200000; i++ {
		whole.WriteString(strconv.Itoa(i) + "\n")
	}
	cmd := `{"command":"seq 1 200000"}`
	r := gantry(t, dir, environ, "tool", "--trust", "bash", cmd)
	if r.code != 0 || utf8.RuneCountInString(r.stdout) > tool.ShellPreview.Chars+1 || !strings.HasPrefix(r.stdout, "1\n2\n") || !strings.HasSuffix(r.stdout, "\n200000\n") {
		t.Fatalf("gantry tool bash: %d, %d bytes:\n%s\n%s", r.code, len(r.stdout), r.stdout, r.stderr)
	}
	m := regexp.MustCompile(`The whole output is saved in (\S+): read a range`).FindStringSubmatch(r.stdout)
	if m == nil || filepath.Dir(m[1]) != filepath.Join(data, "outputs", "standalone") {
		t.Fatalf("the note names no file in %s:\n%s", filepath.Join(data, "outputs", "standalone"), r.stdout)
	}
	if b, err := os.ReadFile(m[1]); err != nil || string(b) != strings.TrimSuffix(whole.String(), "\n") {
		t.Fatalf("the saved file is not the whole output (%v, %d bytes)", err, len(b))
	}
	in, _ := json.Marshal(map[string]any{"path": m[1], "start": 123456, "end": 123457})
	if r := gantry(t, dir, environ, "tool", "--trust", "read_file", string(in)); r.code != 0 || r.stdout != "123456\n123457\n" {
		t.Errorf("read_file of the saved output: %d %q %q", r.code, r.stdout, r.stderr)
	}
	other, _ := json.Marshal(map[string]any{"path": filepath.Join(dir, ".gantry", "permissions.yaml")})
	if r := gantry(t, dir, environ, "tool", "--trust", "read_file", string(other)); r.code == 0 {
		t.Errorf("the deny rule does not hold elsewhere, so the test proves nothing: %q", r.stdout)
	}
	if r := gantry(t, dir, environ, "tool", "--raw", "--trust", "bash", cmd); r.code != 0 || r.stdout != whole.String() {
		t.Errorf("--raw prints %d bytes, not the whole %d", len(r.stdout), whole.Len())
	}
}
