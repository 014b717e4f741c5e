package main

import (
	"os"
	"strings"
	"testing"
)

// Releasing the executable's read-only pages loses nothing: the code runs on, and
// its read-only data reads back the same.
func TestReleaseInitPagesKeepsTheProcessWhole(t *testing.T) {
	before := usageText
	releaseInitPages()
	if usageText != before || !strings.Contains(usageText, "gantry -p") {
		t.Fatal("read-only data changed")
	}
	if _, err := os.Executable(); err != nil {
		t.Fatal(err)
	}
	if f, err := parseFlags([]string{"-p", "hello", "--max-turns", "3"}); err != nil || f.prompt != "hello" || f.maxTurns != 3 {
		t.Fatalf("code after the release: %+v %v", f, err)
	}
}
