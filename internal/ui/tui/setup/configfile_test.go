package setup

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestSetTopLevel(t *testing.T) {
	set := []setting{{key: "provider", value: "openai"}, {key: "model", value: "gpt-5"}}
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "provider: openai\nmodel: gpt-5\n"},
		{"comments only", "# mine\n", "# mine\nprovider: openai\nmodel: gpt-5\n"},
		{"no final newline", "maxOutput: 4000", "maxOutput: 4000\nprovider: openai\nmodel: gpt-5\n"},
		{
			"both there, other keys and comments kept",
			"# my gantry\nprovider: anthropic # work account\n\n# the model\nmodel: claude-opus-4-1\nbash:\n  timeout: 300 # slow builds\n",
			"# my gantry\nprovider: openai # work account\n\n# the model\nmodel: gpt-5\nbash:\n  timeout: 300 # slow builds\n",
		},
		{
			"model missing: added after provider",
			"provider: anthropic\nbash:\n  timeout: 300\n",
			"provider: openai\nmodel: gpt-5\nbash:\n  timeout: 300\n",
		},
		{
			"model first, provider missing",
			"model: x\n\nmaxOutput: 4000\n",
			"model: gpt-5\nprovider: openai\n\nmaxOutput: 4000\n",
		},
		{
			"quoted keys and values",
			"\"provider\": 'anthropic'   # q\n'model': \"a # b\"\n",
			"\"provider\": openai # q\n'model': gpt-5\n",
		},
		{
			"value on the next line, with a comment among it",
			"provider:\n  # was:\n  anthropic\n\nmodel: m\n",
			"provider: openai\n  # was:\n\nmodel: gpt-5\n",
		},
		{
			"block scalar: its lines are text, dropped",
			"model: |\n  x\n  # text\nprovider: p\n",
			"model: gpt-5\nprovider: openai\n",
		},
		{
			"nested keys of the same name untouched",
			"models:\n  fast: small\n  model: no\ncompact:\n  threshold: 0.5\n",
			"models:\n  fast: small\n  model: no\ncompact:\n  threshold: 0.5\nprovider: openai\nmodel: gpt-5\n",
		},
		{
			"block sequence in column one belongs to its key",
			"skillsDir:\n- a\n- b\nprovider: x\n",
			"skillsDir:\n- a\n- b\nprovider: openai\nmodel: gpt-5\n",
		},
		{
			"CRLF line ends",
			"# w\r\nprovider: anthropic\r\nmaxOutput: 4000\r\n",
			"# w\r\nprovider: openai\r\nmodel: gpt-5\r\nmaxOutput: 4000\r\n",
		},
		{
			"document start kept",
			"---\nmaxOutput: 4000\n",
			"---\nmaxOutput: 4000\nprovider: openai\nmodel: gpt-5\n",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := setTopLevel([]byte(tc.in), set)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
		})
	}
}

func TestSetTopLevelQuotesWhatNeedsIt(t *testing.T) {
	got, err := setTopLevel([]byte("model: x\n"), []setting{{key: "model", value: "true"}})
	if err != nil || string(got) != "model: \"true\"\n" {
		t.Fatalf("got %q, %v", got, err)
	}
	got, err = setTopLevel(nil, []setting{{key: "model", value: "org/model:7b"}})
	if err != nil || !strings.HasPrefix(string(got), "model: ") {
		t.Fatalf("got %q, %v", got, err)
	}
	if m, _ := topLevel(got); m["model"] != "org/model:7b" {
		t.Fatalf("read back %q from %q", m["model"], got)
	}
}

func TestSetTopLevelRefusesWhatItCannotEditSafely(t *testing.T) {
	set := []setting{{key: "provider", value: "openai"}, {key: "model", value: "gpt-5"}}
	for _, in := range []string{
		"provider: [unclosed\n",               // not YAML
		"- a\n- b\n",                          // not a mapping
		"{maxOutput: 4000}\n",                 // flow mapping: the keys cannot be appended
		"  maxOutput: 4000\n  provider: x\n",  // indented mapping
		"provider: &p anthropic\nother: *p\n", // an alias of the old value
		"provider: x\nprovider: y\n",          // duplicate key
		"a: 1\n---\nb: 2\n",                   // two documents
		"model: \"x\" extra\nprovider: p\n",   // not YAML
		"maxOutput: 4000\n...\n# after end\n", // explicit document end
		"bash: {timeout: 1,\n  x: 2}\nz: 1\n", // only a guard: accepted if it decodes the same
	} {
		got, err := setTopLevel([]byte(in), set)
		if err == nil {
			// Acceptable only if the edit is right.
			m, derr := topLevel(got)
			if derr != nil || m["provider"] != "openai" || m["model"] != "gpt-5" {
				t.Errorf("%q: accepted as %q", in, got)
			}
			t.Logf("%q: accepted as %q", in, got)
			continue
		}
		t.Logf("%q: %v", in, err)
		if strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: error of several lines: %v", in, err)
		}
	}
}

func TestWriteUserConfigFreshAndExisting(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "cfg")
	path := filepath.Join(dir, "config.yaml")
	if err := writeUserConfig(path, choice{"anthropic", "claude-sonnet-4-5", ""}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := freshHeader + "provider: anthropic\nmodel: claude-sonnet-4-5\n"; string(data) != want {
		t.Errorf("fresh file:\n%s\nwant\n%s", data, want)
	}
	if runtime.GOOS != "windows" {
		if fi, _ := os.Stat(dir); fi.Mode().Perm() != 0o700 {
			t.Errorf("folder mode %v", fi.Mode())
		}
	}

	existing := "# team settings\nmaxOutput: 40000 # long logs\nprovider: anthropic\npermissions:\n  deny:\n    - \"bash:rm -rf.*\"\n"
	if err := os.WriteFile(path, []byte(existing), 0o640); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, 0o640)
	if err := writeUserConfig(path, choice{"openai-chat", "llama3", ""}); err != nil {
		t.Fatal(err)
	}
	data, _ = os.ReadFile(path)
	want := "# team settings\nmaxOutput: 40000 # long logs\nprovider: openai-chat\nmodel: llama3\npermissions:\n  deny:\n    - \"bash:rm -rf.*\"\n"
	if string(data) != want {
		t.Errorf("existing file:\n%s\nwant\n%s", data, want)
	}
	if fi, _ := os.Stat(path); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o640 {
		t.Errorf("mode %v, want the file's 0640 kept", fi.Mode())
	}

	// A file it cannot edit is left alone, with a sentence that says what to do.
	bad := "{maxOutput: 4000}\n"
	os.WriteFile(path, []byte(bad), 0o644)
	err := writeUserConfig(path, choice{"openai", "gpt-5", ""})
	if err == nil || !strings.Contains(err.Error(), "by hand") || !strings.Contains(err.Error(), path) {
		t.Errorf("err = %v", err)
	}
	if data, _ := os.ReadFile(path); string(data) != bad {
		t.Errorf("file changed: %q", data)
	}
}

func TestWriteUserConfigFollowsALink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges")
	}
	base := t.TempDir()
	target := filepath.Join(base, "dotfiles", "gantry.yaml")
	os.MkdirAll(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("maxOutput: 4000\n"), 0o644)
	link := filepath.Join(base, "config.yaml")
	if err := os.Symlink(target, link); err != nil {
		t.Fatal(err)
	}
	if err := writeUserConfig(link, choice{"openai", "gpt-5", ""}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link replaced: %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "maxOutput: 4000\nprovider: openai\nmodel: gpt-5\n" {
		t.Errorf("target: %q", data)
	}
}
