// Package walk lists the files of a directory tree the way ripgrep does by default
// (`rg --files`), in parallel, for the glob and grep tools.
//
// Rules, as ripgrep 13 applies them:
//
//   - .gitignore files (nested, with negations, anchored and directory-only patterns, **,
//     {a,b} and backslash escapes), the repository's .git/info/exclude and the global
//     excludes file (core.excludesFile, or $XDG_CONFIG_HOME/git/ignore) apply only inside
//     a git repository: a directory holding .git, the root or one of its ancestors. A nested
//     repository does not see the .gitignore files of the repository around it.
//   - .ignore files apply everywhere and take precedence over .gitignore, which takes
//     precedence over .git/info/exclude, which takes precedence over the global file.
//   - Ignore files of the root's ancestors are read up to the repository root (ripgrep also
//     reads .ignore files above it; walk does not).
//   - Hidden entries (names starting with a dot) are skipped unless Options.Hidden is set or
//     an ignore rule whitelists them (`!.env`); .git directories are always skipped.
//   - Symbolic links are never followed nor listed, so nothing outside the root is listed.
//     Only regular files are reported (no directories, devices, sockets or pipes).
//
// Paths given to the visitor are relative to the root, slash-separated, without a leading
// "./". Glob compiles the patterns the ignore files use and the glob tool matches with
// (doublestar syntax: *, ?, [a-z], [!a], {a,b}, ** as a whole path component).
//
// The walker is gantry's own rather than a library because grep and glob must list
// exactly what ripgrep lists — the precedence of the ignore files, where a repository
// begins and ends, hidden entries, links — and a gitignore matcher gives only part of
// that; conform_test.go checks it against `rg --files` on a tree for each rule, and
// goroot_test.go on the Go sources.
package walk
