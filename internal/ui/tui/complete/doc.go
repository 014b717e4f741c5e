// Package complete computes the completions of gantry's input box: the files and
// folders of the project after `@`, the skills after `@skill:` and the commands after a
// `/` at the start of the input. It is pure logic: Token finds what the person is
// completing, Files, Skills and Commands rank what fits, Apply puts the chosen
// Candidate in the input.
//
// Matching ignores case. A candidate whose text starts with what was typed ranks first,
// then (for files) one whose base name does, then one holding the typed characters in
// order (a fuzzy match, so `agtool` finds internal/agent/tool.go), scored higher for
// contiguous runs and for characters following `/`, `_`, `-` or `.`.
package complete
