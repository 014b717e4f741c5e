package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// configDir is the user configuration folder env gives gantry.
func configDir(t *testing.T, environ []string) string {
	t.Helper()
	for _, kv := range environ {
		if v, ok := strings.CutPrefix(kv, "GANTRY_CONFIG_DIR="); ok {
			return v
		}
	}
	t.Fatal("no GANTRY_CONFIG_DIR in the environment")
	return ""
}

func writeUserConfig(t *testing.T, environ []string, yaml string) string {
	t.Helper()
	p := filepath.Join(configDir(t, environ), "config.yaml")
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(yaml), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A base URL in the user's config.yaml takes each provider to a local server, with no
// key and no variable in the environment.
func TestBaseURLFromTheConfigEveryProvider(t *testing.T) {
	for _, p := range []struct{ provider, suffix, path string }{
		{"anthropic", "", "messages"},
		{"openai", "/v1", "responses"},
		{"openai-chat", "/v1", "chat/completions"},
	} {
		t.Run(p.provider, func(t *testing.T) {
			srv := fakellm.New(say("local answer"))
			defer srv.Close()
			e := env(t)
			writeUserConfig(t, e, "provider: "+p.provider+"\nmodel:\n  name: local-model\n  firstByteTimeout: 60\nproviders:\n  "+p.provider+":\n    baseURL: "+srv.URL()+p.suffix+"\n")
			r := gantry(t, t.TempDir(), e, "-p", "hi")
			if r.code != 0 || r.stdout != "local answer\n" {
				t.Fatalf("exit %d, stdout %q, stderr %q", r.code, r.stdout, r.stderr)
			}
			reqs := srv.Requests()
			if len(reqs) != 1 || !strings.HasSuffix(reqs[0].Path, p.path) || reqs[0].Body["model"] != "local-model" {
				t.Fatalf("requests: %+v", reqs)
			}
		})
	}
}

// OPENAI_BASE_URL wins over the config; a project's base URL is not obeyed, and doctor
// says where each provider's requests go.
func TestBaseURLPrecedenceAndDoctor(t *testing.T) {
	fromConfig := fakellm.New(say("from the config"))
	defer fromConfig.Close()
	fromEnv := fakellm.New(say("from the environment"))
	defer fromEnv.Close()
	e := env(t)
	writeUserConfig(t, e, "provider: openai-chat\nproviders:\n  openai-chat:\n    baseURL: "+fromConfig.URL()+"/v1\n")

	r := gantry(t, t.TempDir(), append(e, "OPENAI_BASE_URL="+fromEnv.URL()+"/v1"), "-p", "hi")
	if r.code != 0 || r.stdout != "from the environment\n" || len(fromConfig.Requests()) != 0 {
		t.Fatalf("exit %d, stdout %q, stderr %q; config's server got %d requests", r.code, r.stdout, r.stderr, len(fromConfig.Requests()))
	}

	dir := t.TempDir()
	r = gantry(t, dir, e, "doctor")
	if r.code != 0 || !strings.Contains(r.stdout, "base URL of openai-chat: "+fromConfig.URL()+"/v1 (providers.openai-chat.baseURL)") ||
		!strings.Contains(r.stdout, "no key found; a base URL is set") {
		t.Errorf("doctor: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	r = gantry(t, dir, append(e, "OPENAI_BASE_URL="+fromEnv.URL()+"/v1"), "doctor")
	if !strings.Contains(r.stdout, "base URL of openai, openai-chat: "+fromEnv.URL()+"/v1 (OPENAI_BASE_URL)") {
		t.Errorf("doctor with OPENAI_BASE_URL:\n%s", r.stdout)
	}

	// A project names another server for openai: it is ignored, so openai has no key.
	writeFiles(t, dir, map[string]string{".gantry/config.yaml": "providers:\n  openai:\n    baseURL: " + fromEnv.URL() + "/v1\n"})
	r = gantry(t, dir, e, "-p", "hi", "--provider", "openai")
	if r.code == 0 || !strings.Contains(r.stderr, "the openai provider needs OPENAI_API_KEY") || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Errorf("the project's base URL: exit %d, stderr %q", r.code, r.stderr)
	}
	r = gantry(t, dir, e, "doctor")
	if !strings.Contains(r.stdout, "! ") || !strings.Contains(r.stdout, "ignored: "+filepath.Join(dir, ".gantry", "config.yaml")+": providers.openai.baseURL is honoured only in the user's config") {
		t.Errorf("doctor does not say the project's base URL is ignored:\n%s", r.stdout)
	}
	if len(fromEnv.Requests()) != 1 {
		t.Errorf("the environment's server got %d requests", len(fromEnv.Requests()))
	}
}

// A base URL that is not an absolute http(s) URL stops gantry with the file, the line
// and the key, before anything is sent.
func TestBadBaseURLInConfig(t *testing.T) {
	e := env(t)
	p := writeUserConfig(t, e, "provider: openai-chat\nproviders:\n  openai-chat:\n    baseURL: localhost:11434/v1\n")
	r := gantry(t, t.TempDir(), e, "-p", "hi")
	want := p + `:4: key "providers.openai-chat.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "localhost:11434/v1"`
	if r.code == 0 || !strings.Contains(r.stderr, want) || strings.Count(strings.TrimSpace(r.stderr), "\n") != 0 {
		t.Fatalf("exit %d, stderr %q", r.code, r.stderr)
	}
}
