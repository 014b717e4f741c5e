// Package refs expands the context references of a user prompt: @file:path (or a plain
// @path naming an existing file or folder) inserts the file's content or the folder's
// listing after the prompt, and @skill:name loads a skill as read_skill does (its folder
// first; whole, or its start and the table of its parts), with the rest of the line
// as its arguments. References stay in the prompt as typed; those that
// cannot be resolved are reported in one line each.
package refs
