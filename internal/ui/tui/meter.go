package tui

import (
	"fmt"

	"github.com/gantry-dev/gantry/internal/app"
	"github.com/gantry-dev/gantry/internal/face"
)

// contextMeter is how full the model's context window is: the tokens the last
// request of the conversation filled it with (its response's input, cache read and
// cache write tokens), not the session's cumulative count.
type contextMeter struct {
	used int64 // 0 until the first response, and again after a compaction
}

// observe takes the used tokens from a response of the conversation's own; usage
// spent elsewhere (a subagent's, a summary's) says nothing of its context.
func (c *contextMeter) observe(e face.TurnUsage) {
	if !e.Elsewhere {
		c.used = app.ContextTokens(e.Usage)
	}
}

// share is the part of a window of that many tokens in use, in percent; ok is false
// when nothing is known (no response yet, or the window's size is unknown).
func (c contextMeter) share(window int) (pct float64, ok bool) {
	if c.used <= 0 || window <= 0 {
		return 0, false
	}
	return 100 * float64(c.used) / float64(window), true
}

// status is the status line's part: "12% context", "" when nothing is known.
func (c contextMeter) status(window int) string {
	pct, ok := c.share(window)
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s context", percent(pct))
}

// line is /context's sentence on the last request: "last request: 23k of 200k
// tokens (12% of the window)".
func (c contextMeter) line(window int) string {
	switch pct, ok := c.share(window); {
	case c.used <= 0:
		return "last request: none yet in this conversation"
	case !ok:
		return fmt.Sprintf("last request: %s tokens (the model's window is unknown)", short(c.used))
	default:
		return fmt.Sprintf("last request: %s of %s tokens (%s of the window)", short(c.used), short(int64(window)), percent(pct))
	}
}

// percent rounds a share to a whole percent, but says "<1%" for a sliver.
func percent(p float64) string {
	if p > 0 && p < 1 {
		return "<1%"
	}
	return fmt.Sprintf("%.0f%%", p)
}
