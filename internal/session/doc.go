// Package session is gantry's session store: every prompt, model message, tool result,
// face event and usage figure of a session is written to an embedded SQLite database
// (pure Go, modernc.org/sqlite) the moment it happens, so a crash or a kill -9 in the
// middle of a turn loses at most the event being written, and the session resumes.
//
// The database lives at DefaultPath: $XDG_DATA_HOME/gantry/sessions.db, or
// ~/.local/share/gantry/sessions.db when XDG_DATA_HOME is unset. The environment
// variable GANTRY_DATA_DIR, when set, replaces the folder (tests use it to stay out of
// the user's home).
//
// The database runs in WAL mode with synchronous=NORMAL: a write that has returned
// survives the death of the process (not necessarily a power cut). The schema is
// versioned with PRAGMA user_version and created or migrated when the store is opened.
// A Store is safe for concurrent use, and so is a Session.
package session
