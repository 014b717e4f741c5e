// Package search holds the tools the model finds things with: glob (files by name,
// newest first) and grep (file contents by regular expression). Both walk the tree with
// package walk, so they honour .gitignore, .ignore and .git/info/exclude and skip hidden
// files as ripgrep does, and neither needs ripgrep or fd at run time.
//
// grep reads every file a chunk at a time (chunkSize) through one buffer per worker, so
// that its memory does not grow with the files: a line longer than the buffer (which may
// grow to maxLineBuf, for two workers of the process at once) is read through, its
// literal found in overlapping segments and the regex run on it, when it must, as an
// io.RuneReader, and only the part of it shown is read back; content mode keeps the last
// lines of a chunk for the context of the next, and renders a file only up to the
// collector's budget (twice the output bound), counting the rest. A regex matches
// within one line, whatever the buffer holds. A file holding a NUL byte is binary: the
// files a walk finds are skipped silently, as ripgrep skips them; a binary file named by
// path is said to be one, with whether the pattern matches in it (as rg's "binary file
// matches"), rather than answered with no match.
//
// Every failure the model can cause — an invalid pattern, a missing path, a file where a
// folder is needed, an unreadable folder — is one sentence returned as an error result.
package search

import "github.com/gantry-dev/gantry/internal/tool"

// Options configure the search tools.
type Options struct {
	// MaxOutput bounds the text the model reads, in characters; 0 means 30000.
	MaxOutput int
}

// DefaultMaxOutput is the output bound used when Options.MaxOutput is not set.
const DefaultMaxOutput = tool.DefaultMaxOutput

func (o Options) maxOutput() int { return tool.MaxOutputOr(o.MaxOutput) }

// Tools returns glob and grep.
func Tools(o Options) []tool.Tool { return []tool.Tool{Glob(o), Grep(o)} }
