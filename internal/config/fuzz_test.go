package config

import (
	"strings"
	"testing"
)

func FuzzLoadConfig(f *testing.F) {
	for _, seed := range []string{
		"",
		"model: m\nmaxOutput: 3000\n",
		"bash:\n  timeot: 3\n",
		"skillsDir: [a, {b: c}]\n",
		"hooks:\n  PreToolUse:\n    - matcher: \"(\"\n      hooks: [{type: command, command: x}]\n",
		"mcpServers:\n  s: {command: x, env: {A: b}, timeout: 3}\n",
		"a: &x [*x]\n",
		"<<: {model: m}\n",
		"--- !!map\n? model\n: m\n",
		"permissions: {allow_all: true, deny: ['bash:rm.*']}\ncompact: {threshold: .5}\n",
		"maxOutput: !!str 3000\n",
		"\t- x",
		"model: \"\\u00e9\"\n...\n",
	} {
		f.Add([]byte(seed))
	}
	const path = "/some/where/.gantry/config.yaml"
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := parse(path, data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, path+":") {
					t.Fatalf("error line does not name the file: %q (input %q)", line, data)
				}
			}
			return
		}
		c := Default()
		l.apply(c) // merging what decoded must not panic either
	})
}
