package config

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestCredentialsPathIsInUserDir(t *testing.T) {
	e := newEnv(t)
	if got, want := CredentialsPath(), filepath.Join(e.user, "credentials.yaml"); got != want {
		t.Fatalf("CredentialsPath() = %q, want %q", got, want)
	}
}

func TestCredentialsMissingFileIsEmpty(t *testing.T) {
	t.Setenv("GANTRY_CONFIG_DIR", filepath.Join(t.TempDir(), "none"))
	c, err := LoadCredentials()
	if err != nil || c != (Credentials{}) {
		t.Fatalf("LoadCredentials() = %+v, %v", c, err)
	}
}

func TestCredentialsRoundTrip(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "new", "gantry")
	t.Setenv("GANTRY_CONFIG_DIR", dir)
	want := Credentials{AnthropicAPIKey: "sk-ant-1", OpenAIAPIKey: "sk-openai-2"}
	if err := SaveCredentials(want); err != nil {
		t.Fatal(err)
	}
	got, err := LoadCredentials()
	if err != nil || got != want {
		t.Fatalf("LoadCredentials() = %+v, %v; want %+v", got, err, want)
	}
	data, _ := os.ReadFile(CredentialsPath())
	for _, s := range []string{"anthropicApiKey: sk-ant-1\n", "openaiApiKey: sk-openai-2\n", "chmod 600"} {
		if !strings.Contains(string(data), s) {
			t.Errorf("file lacks %q:\n%s", s, data)
		}
	}
	if runtime.GOOS == "windows" {
		return
	}
	if fi, err := os.Stat(CredentialsPath()); err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("file mode %v, %v; want 0600", fi.Mode(), err)
	}
	if fi, err := os.Stat(dir); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("folder mode %v, %v; want 0700", fi.Mode(), err)
	}

	// One key only: the other is not written at all.
	if err := SaveCredentials(Credentials{OpenAIAPIKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(CredentialsPath()); strings.Contains(string(data), "anthropic") {
		t.Errorf("empty key written:\n%s", data)
	}
	if got, err := LoadCredentials(); err != nil || got != (Credentials{OpenAIAPIKey: "k"}) {
		t.Errorf("LoadCredentials() = %+v, %v", got, err)
	}
}

func TestCredentialsWiderThan0600AreRefused(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no Unix modes")
	}
	e := newEnv(t)
	path := filepath.Join(e.user, "credentials.yaml")
	write(t, path, "anthropicApiKey: sk-secret-value\n")
	for _, mode := range []os.FileMode{0o644, 0o640, 0o604, 0o660, 0o700} {
		if err := os.Chmod(path, mode); err != nil {
			t.Fatal(err)
		}
		_, err := LoadCredentials()
		if err == nil {
			t.Fatalf("mode %04o accepted", mode)
		}
		msg := err.Error()
		if !strings.Contains(msg, "chmod 600 "+path) || strings.Contains(msg, "\n") || strings.Contains(msg, "sk-secret") {
			t.Errorf("mode %04o: %q", mode, msg)
		}
	}
	for _, mode := range []os.FileMode{0o600, 0o400} {
		os.Chmod(path, mode)
		if c, err := LoadCredentials(); err != nil || c.AnthropicAPIKey != "sk-secret-value" {
			t.Errorf("mode %04o: %+v, %v", mode, c, err)
		}
	}
}

func TestCredentialsBadFileIsOneSentenceWithoutSecrets(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.user, "credentials.yaml")
	for _, body := range []string{
		"anthropicApiKey: sk-secret-value\nanthropicApiKye: sk-secret-value\n", // unknown key
		"anthropicApiKey: [sk-secret-value\n",                                  // syntax
		"- sk-secret-value\n",                                                  // not a mapping
	} {
		write(t, path, body)
		os.Chmod(path, 0o600)
		_, err := LoadCredentials()
		if err == nil {
			t.Fatalf("%q accepted", body)
		}
		if msg := err.Error(); strings.Contains(msg, "sk-secret") || strings.Contains(msg, "\n") || !strings.Contains(msg, path) {
			t.Errorf("%q: %q", body, msg)
		}
	}
	// Only comments: nothing stored.
	write(t, path, credentialsHeader)
	os.Chmod(path, 0o600)
	if c, err := LoadCredentials(); err != nil || c != (Credentials{}) {
		t.Errorf("comments only: %+v, %v", c, err)
	}
}

func TestSaveCredentialsIsAtomic(t *testing.T) {
	e := newEnv(t)
	path := filepath.Join(e.user, "credentials.yaml")
	write(t, path, "anthropicApiKey: old\n")
	os.Chmod(path, 0o644)
	before, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := SaveCredentials(Credentials{AnthropicAPIKey: "new"}); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	// A new file was renamed over the old one (which is why it has the new mode), not
	// the old one rewritten in place.
	if os.SameFile(before, after) {
		t.Error("the file was rewritten in place")
	}
	if runtime.GOOS != "windows" && after.Mode().Perm() != 0o600 {
		t.Errorf("mode %v after replacing a 0644 file", after.Mode())
	}
	if c, err := LoadCredentials(); err != nil || c.AnthropicAPIKey != "new" {
		t.Errorf("LoadCredentials() = %+v, %v", c, err)
	}
	assertNoTempFiles(t, e.user)

	// A failed rename (a folder in the way) leaves no temporary file behind.
	os.Remove(path)
	os.MkdirAll(filepath.Join(path, "x"), 0o700)
	if err := SaveCredentials(Credentials{AnthropicAPIKey: "k"}); err == nil {
		t.Error("saving over a folder succeeded")
	}
	assertNoTempFiles(t, e.user)
}

func TestSaveCredentialsFollowsASymlink(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges")
	}
	e := newEnv(t)
	target := filepath.Join(e.home, "dotfiles", "credentials.yaml")
	os.MkdirAll(filepath.Dir(target), 0o700)
	if err := os.Symlink(target, filepath.Join(e.user, "credentials.yaml")); err != nil {
		t.Fatal(err)
	}
	if err := SaveCredentials(Credentials{OpenAIAPIKey: "k"}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(filepath.Join(e.user, "credentials.yaml")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the link was replaced: %v, %v", fi, err)
	}
	if c, err := LoadCredentials(); err != nil || c.OpenAIAPIKey != "k" {
		t.Errorf("LoadCredentials() = %+v, %v", c, err)
	}
}

func assertNoTempFiles(t *testing.T, dir string) {
	t.Helper()
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".tmp") {
			t.Errorf("temporary file left: %s", e.Name())
		}
	}
}
