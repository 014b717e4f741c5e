package config

import (
	"path/filepath"
	"testing"
)

// BenchmarkLoad is the start-up cost of reading both configuration files.
func BenchmarkLoad(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("GANTRY_CONFIG_DIR", filepath.Join(dir, "user"))
	root := filepath.Join(dir, "proj")
	writeB(b, filepath.Join(root, ".git", "HEAD"), "x")
	writeB(b, filepath.Join(dir, "user", "config.yaml"), "provider: anthropic\nmodel: m\npermissions:\n  deny: ['bash:rm -rf.*']\n")
	writeB(b, filepath.Join(root, ".gantry", "config.yaml"), "maxOutput: 20000\nhooks:\n  PreToolUse:\n    - matcher: bash\n      hooks: [{type: command, command: x}]\nmcpServers:\n  s: {command: srv, args: [a, b]}\n")
	for b.Loop() {
		if _, err := Load(root); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkMemory is the start-up cost of gathering the memory files.
func BenchmarkMemory(b *testing.B) {
	dir := b.TempDir()
	b.Setenv("GANTRY_CONFIG_DIR", filepath.Join(dir, "user"))
	b.Setenv("HOME", dir)
	root := filepath.Join(dir, "proj")
	writeB(b, filepath.Join(root, ".git", "HEAD"), "x")
	writeB(b, filepath.Join(dir, "user", "AGENTS.md"), "be terse\n")
	writeB(b, filepath.Join(root, "AGENTS.md"), "# Project\nsee @docs/a.md\n```\n@no.md\n```\n")
	writeB(b, filepath.Join(root, "docs", "a.md"), "details\n")
	sub := filepath.Join(root, "x", "y")
	writeB(b, filepath.Join(sub, "CLAUDE.md"), "sub rules\n")
	for b.Loop() {
		if _, err := Memory(sub); err != nil {
			b.Fatal(err)
		}
	}
}
