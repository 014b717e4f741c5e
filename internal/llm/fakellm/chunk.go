package fakellm

import (
	"strings"
	"unicode/utf8"
)

// words splits text into chunks of about three words each, so that a response
// streams in several small deltas as a real model's does. Joined, the chunks give
// back text.
func words(text string) []string {
	if text == "" {
		return nil
	}
	var chunks []string
	var b strings.Builder
	n := 0
	for _, w := range strings.SplitAfter(text, " ") {
		b.WriteString(w)
		if n++; n == 3 {
			chunks = append(chunks, b.String())
			b.Reset()
			n = 0
		}
	}
	if b.Len() > 0 {
		chunks = append(chunks, b.String())
	}
	return chunks
}

// pieces splits s into chunks of about size bytes, as tool-call arguments stream,
// never inside a UTF-8 sequence.
func pieces(s string, size int) []string {
	var chunks []string
	for len(s) > size {
		cut := size
		for cut > 1 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		chunks = append(chunks, s[:cut])
		s = s[cut:]
	}
	if s != "" {
		chunks = append(chunks, s)
	}
	return chunks
}
