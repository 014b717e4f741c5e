package session

import (
	"os"
	"path/filepath"
)

// DefaultPath returns where the session database lives: $GANTRY_DATA_DIR/sessions.db
// when GANTRY_DATA_DIR is set, else $XDG_DATA_HOME/gantry/sessions.db, else
// ~/.local/share/gantry/sessions.db.
func DefaultPath() string {
	return filepath.Join(dataDir(), "sessions.db")
}

func dataDir() string {
	if d := os.Getenv("GANTRY_DATA_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "gantry")
	}
	home, err := os.UserHomeDir()
	if err != nil || home == "" {
		// No home: fall back to the working directory rather than "/".
		return filepath.Join(".gantry", "data")
	}
	return filepath.Join(home, ".local", "share", "gantry")
}
