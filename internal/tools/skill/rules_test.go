package skill

import (
	"reflect"
	"strings"
	"testing"
)

// RulesOf translates a command's allowed-tools as a skill's: Claude's names and
// patterns to gantry's rules, and says what it ignored.
func TestRulesOf(t *testing.T) {
	rules, ignored := RulesOf([]string{"Bash(git add:*)", "Read", "Frobnicate"}, func(n string) bool { return n == "bash" || n == "read_file" })
	if want := []string{"bash:git add( .*)?", "read_file"}; !reflect.DeepEqual(rules, want) {
		t.Errorf("rules = %q, want %q", rules, want)
	}
	if len(ignored) != 1 || !strings.HasPrefix(ignored[0], "Frobnicate (") {
		t.Errorf("ignored = %q", ignored)
	}
}
