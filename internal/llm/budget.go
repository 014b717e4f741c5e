package llm

import "fmt"

// DefaultMaxResponseBytes bounds what one response may stream of text, thinking
// and tool-call arguments together: far beyond any output limit of a real model
// (128k tokens are about half a megabyte), it keeps a server that streams without
// end from filling gantry's memory.
const DefaultMaxResponseBytes = 8 << 20

// TooLongError is a response stopped because it streamed more than its bound of
// text, thinking and tool-call arguments. It is not retried: the text that came is
// kept.
type TooLongError struct {
	Limit int
}

func (e *TooLongError) Error() string {
	return fmt.Sprintf("the model's response passed %s of text, thinking and tool arguments, the bound of one response; the stream was stopped and the text that came is kept",
		sizeString(e.Limit))
}

func sizeString(n int) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}

// Budget counts the bytes one response streams against its bound.
type Budget struct {
	limit, used int
}

// NewBudget is the budget of one response: limit bytes, the default when it is
// zero or negative.
func NewBudget(limit int) *Budget {
	if limit <= 0 {
		limit = DefaultMaxResponseBytes
	}
	return &Budget{limit: limit}
}

// Take counts n more bytes, failing with a *TooLongError once past the bound.
func (b *Budget) Take(n int) error {
	b.used += n
	if b.used > b.limit {
		return &TooLongError{Limit: b.limit}
	}
	return nil
}
