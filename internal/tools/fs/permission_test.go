package fs

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// Files gantry may not read or write. Root reads and writes everything, so as root
// the calls run in a copy of this test binary started as the user nobody.

const noPermChild = "GANTRY_FS_NOPERM_DIR"

type permCase struct {
	Name, Tool string
	Args       map[string]any
}

// permCases are the calls; the file names are relative to the locked folder.
var permCases = []permCase{
	{"read_file unreadable", "read_file", A{"path": "secret.txt"}},
	{"write_file into a locked folder", "write_file", A{"path": "locked/new.txt", "content": "x"}},
	{"write_file over a locked file", "write_file", A{"path": "locked/kept.txt", "content": "changed"}},
	{"edit_file a locked file", "edit_file", A{"path": "locked/kept.txt", "edits": []A{{"old": "kept", "new": "changed"}}}},
	{"apply_patch a locked file", "apply_patch", A{"patch": "*** Begin Patch\n*** Update File: locked/kept.txt\n@@\n-kept\n+changed\n*** End Patch\n"}},
}

// TestHelperNoPermission runs the calls when started by TestNoPermission.
func TestHelperNoPermission(t *testing.T) {
	dir := os.Getenv(noPermChild)
	if dir == "" {
		t.Skip("started by TestNoPermission only")
	}
	out := map[string]any{}
	for _, c := range permCases {
		for _, tl := range Tools(testOpts) {
			if tl.Name() == c.Tool {
				r := call(t, tl, dir, c.Args)
				out[c.Name] = map[string]any{"text": r.Text, "is_error": r.IsError}
			}
		}
	}
	b, _ := json.Marshal(out)
	fmt.Println("RESULTS " + string(b))
}

func TestNoPermission(t *testing.T) {
	base, err := os.MkdirTemp("", "gantry-noperm-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Join(base, "locked"), 0o755); os.RemoveAll(base) })
	os.Chmod(base, 0o755)
	writeTestFile(t, base, "secret.txt", "top secret\n")
	os.Chmod(filepath.Join(base, "secret.txt"), 0o600)
	kept := writeTestFile(t, base, "locked/kept.txt", "kept\n")
	os.Chmod(kept, 0o444)
	os.Chmod(filepath.Join(base, "locked"), 0o555)

	var results map[string]struct {
		Text    string `json:"text"`
		IsError bool   `json:"is_error"`
	}
	if os.Geteuid() == 0 {
		bin := filepath.Join(base, "fs.test")
		copyFile(t, os.Args[0], bin)
		cmd := exec.Command(bin, "-test.run=^TestHelperNoPermission$", "-test.v")
		cmd.Dir = base
		cmd.Env = append(os.Environ(), noPermChild+"="+base)
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child: %v\n%s", err, out)
		}
		_, js, ok := strings.Cut(string(out), "RESULTS ")
		if !ok {
			t.Fatalf("child printed no results:\n%s", out)
		}
		js, _, _ = strings.Cut(js, "\n")
		if err := json.Unmarshal([]byte(js), &results); err != nil {
			t.Fatal(err)
		}
	} else {
		results = map[string]struct {
			Text    string `json:"text"`
			IsError bool   `json:"is_error"`
		}{}
		for _, c := range permCases {
			for _, tl := range Tools(testOpts) {
				if tl.Name() == c.Tool {
					r := call(t, tl, base, c.Args)
					results[c.Name] = struct {
						Text    string `json:"text"`
						IsError bool   `json:"is_error"`
					}{r.Text, r.IsError}
				}
			}
		}
	}
	for _, c := range permCases {
		r, ok := results[c.Name]
		if !ok {
			t.Errorf("%s: no result", c.Name)
			continue
		}
		t.Logf("%s: %s", c.Name, r.Text)
		if !r.IsError || !strings.Contains(strings.ToLower(r.Text), "permission denied") || strings.Count(strings.TrimSpace(r.Text), "\n") > 0 {
			t.Errorf("%s: want one error sentence saying permission denied, got %q", c.Name, r.Text)
		}
	}
	if got := readTestFile(t, kept); got != "kept\n" {
		t.Errorf("the locked file changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(base, "locked", "new.txt")); err == nil {
		t.Error("a file was created in the locked folder")
	}
	entries, _ := os.ReadDir(filepath.Join(base, "locked"))
	if len(entries) != 1 {
		t.Errorf("the locked folder holds %d entries, want only kept.txt (no temporary file)", len(entries))
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	src, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer src.Close()
	dst, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(dst, src); err != nil {
		t.Fatal(err)
	}
	if err := dst.Close(); err != nil {
		t.Fatal(err)
	}
}
