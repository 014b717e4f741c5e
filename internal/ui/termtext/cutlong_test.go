package termtext

import (
	"strings"
	"testing"
)

func TestPreviewKeepsARefusalsRule(t *testing.T) {
	why := "gantry refused bash: " + strings.Repeat("cd /tmp && ls -la && ", 10) + "true was not asked about (print mode cannot ask)."
	rule := "The user can allow it with --allow 'bash:cd( .*)?,bash:ls( .*)?,bash:true( .*)?' or --permission-mode yolo."
	got := Preview(why+" "+rule, 5)
	if len(got) != 1 {
		t.Fatalf("preview of one line is %d lines: %q", len(got), got)
	}
	if !strings.HasSuffix(got[0], rule) {
		t.Errorf("the preview lost the rule to add:\n%s", got[0])
	}
	if !strings.HasPrefix(got[0], "  gantry refused bash: cd /tmp") || !strings.Contains(got[0], "… The user") {
		t.Errorf("the preview lost the start of the refusal, or does not mark the cut:\n%s", got[0])
	}
}

func TestPreviewCutsALongLineWithoutSentences(t *testing.T) {
	l := strings.Repeat("x", 400)
	got := Preview(l, 5)
	if want := "  " + strings.Repeat("x", previewWidth) + "…"; got[0] != want {
		t.Errorf("a long line without sentences is cut to %d runes: got %d", previewWidth, len([]rune(got[0])))
	}
}
