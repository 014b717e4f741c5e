package config

import (
	"errors"
	"testing"
)

func TestProviderBaseURLErrors(t *testing.T) {
	const path = "/u/config.yaml"
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown provider", "providers:\n  opanai:\n    baseURL: http://localhost:1234/v1\n",
			`:2: unknown key "providers.opanai"; did you mean "openai"?`},
		{"misspelt baseURL", "providers:\n  openai-chat:\n    baseUrl: http://localhost:1234/v1\n",
			`:3: unknown key "providers.openai-chat.baseUrl"; did you mean "baseURL"?`},
		{"no scheme", "model: m\nproviders:\n  openai-chat:\n    baseURL: localhost:11434/v1\n",
			`:4: key "providers.openai-chat.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "localhost:11434/v1"`},
		{"relative", "providers:\n  anthropic: {baseURL: /v1}\n",
			`:2: key "providers.anthropic.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "/v1"`},
		{"another scheme", "providers:\n  openai:\n    baseURL: ftp://example.com/v1\n",
			`:3: key "providers.openai.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "ftp://example.com/v1"`},
		{"no host", "providers:\n  openai:\n    baseURL: 'http:///v1'\n",
			`:3: key "providers.openai.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "http:///v1"`},
		{"spaces", "providers:\n  openai:\n    baseURL: ' http://localhost/v1'\n",
			`:3: key "providers.openai.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not " http://localhost/v1"`},
		{"not a string", "providers:\n  openai:\n    baseURL: [a]\n",
			`:3: key "providers.openai.baseURL" must be a string`},
		{"providers not a mapping", "providers: ollama\n",
			`:1: key "providers" must be a mapping`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := parse(path, []byte(tc.yaml))
			if err == nil {
				t.Fatalf("no error for %q", tc.yaml)
			}
			if got, want := err.Error(), path+tc.want; got != want {
				t.Errorf("error\n got %s\nwant %s", got, want)
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != path {
				t.Errorf("not a FileError of the file: %#v", err)
			}
		})
	}
	// Both URLs of a file are reported, in line order.
	_, err := parse(path, []byte("providers:\n  anthropic:\n    baseURL: x\n  openai:\n    baseURL: y\n"))
	want := path + `:3: key "providers.anthropic.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "x"` + "\n" +
		path + `:5: key "providers.openai.baseURL" must be an absolute http or https URL, such as http://localhost:11434/v1, not "y"`
	if err == nil || err.Error() != want {
		t.Errorf("got\n%v\nwant\n%s", err, want)
	}
}

func TestProviderBaseURLFromTheUserFileOnly(t *testing.T) {
	e := newEnv(t)
	e.userFile(t, "provider: openai-chat\nmodel:\n  name: qwen3\n  firstByteTimeout: 300\nproviders:\n  openai-chat:\n    baseURL: http://localhost:11434/v1\n  anthropic:\n    baseURL: https://proxy.example/anthropic\n")
	c, err := Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if c.Providers.Get("openai-chat").BaseURL != "http://localhost:11434/v1" || c.Providers.Get("anthropic").BaseURL != "https://proxy.example/anthropic" ||
		c.Providers.Get("openai").BaseURL != "" || c.Providers.Get("nope").BaseURL != "" {
		t.Errorf("providers %+v", c.Providers)
	}
	if c.Model != "qwen3" || c.FirstByteTimeout != 300 || c.Provider != "openai-chat" {
		t.Errorf("model %q %d, provider %q", c.Model, c.FirstByteTimeout, c.Provider)
	}
	if len(c.Providers.Ignored) != 0 {
		t.Errorf("ignored %v", c.Providers.Ignored)
	}

	// A project's file may not send the requests elsewhere: it is said, not obeyed.
	pf := e.projectFile(t, "providers:\n  openai-chat:\n    baseURL: http://attacker.example/v1\n  openai: {}\n")
	c, err = Load(e.root)
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Providers.Get("openai-chat").BaseURL; got != "http://localhost:11434/v1" {
		t.Errorf("the project's base URL was used: %q", got)
	}
	if want := pf + ": providers.openai-chat.baseURL is honoured only in the user's config"; len(c.Providers.Ignored) != 1 || c.Providers.Ignored[0] != want {
		t.Errorf("ignored %q, want %q", c.Providers.Ignored, want)
	}

	// An empty base URL in the user's file is the provider's own API.
	e.userFile(t, "providers:\n  openai-chat:\n    baseURL: ''\n")
	if c, err = Load(e.root); err != nil || c.Providers.Get("openai-chat").BaseURL != "" {
		t.Errorf("empty base URL: %v %+v", err, c)
	}
}
