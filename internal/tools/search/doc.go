// Package search holds the tools the model finds things with: glob (files by name,
// newest first) and grep (file contents by regular expression). Both walk the tree with
// package walk, so they honour .gitignore, .ignore and .git/info/exclude and skip hidden
// files as ripgrep does, and neither needs ripgrep or fd at run time.
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
