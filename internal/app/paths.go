package app

import (
	"os"
	"path/filepath"
)

// findUp returns the first folder from dir upwards that holds name, or "".
func findUp(dir, name string) string {
	for {
		if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}
