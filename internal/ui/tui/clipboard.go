package tui

import (
	"context"
	"os/exec"
	"time"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/llm"
)

// clipboardImage reads a PNG image from the system clipboard with wl-paste or xclip
// when one of them is installed (terminals paste text only), run by the session (its
// policy, like every process gantry starts).
func clipboardImage(a *app.App) (llm.Image, bool) {
	tries := [][]string{
		{"wl-paste", "--no-newline", "--type", "image/png"},
		{"xclip", "-selection", "clipboard", "-target", "image/png", "-out"},
	}
	for _, t := range tries {
		if _, err := exec.LookPath(t[0]); err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		out, err := a.Output(ctx, t)
		cancel()
		if err == nil && len(out) > 8 && string(out[:8]) == "\x89PNG\r\n\x1a\n" && len(out) <= 5<<20 {
			return llm.Image{MediaType: "image/png", Data: out}, true
		}
	}
	return llm.Image{}, false
}
