// Package history keeps the prompts a person typed into gantry's input box, across
// sessions and folders, the way a shell keeps its command history.
//
// The history lives in one JSON Lines file (one {"t": unix-seconds, "cwd": "...",
// "text": "..."} object per prompt) that the caller names, normally
// <data>/history.jsonl. Loading never fails because of the content: a corrupt line is
// skipped, and of a file larger than 4 MiB only the newest part is read. Each prompt is
// appended with a single write on a file opened with O_APPEND, so two gantry processes
// adding at once never interleave their lines; when the file grows past 2000 lines it is
// rewritten with the newest 1000, through a temporary file renamed over it. Appending
// and compacting take an advisory lock (flock) on the file, so that no line appended
// during a compaction is lost.
//
// In memory a History holds the newest 1000 prompts and a cursor for the input box:
// Prev and Next walk from the newest prompt to the oldest and back, and coming back
// past the newest restores what was being typed before, as shells do.
package history
