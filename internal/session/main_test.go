package session

import (
	"os"
	"path/filepath"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) != "" || os.Getenv(leaseHelperEnv) != "" {
		// The crash test's child: run only the writer, leak checks do not matter.
		os.Exit(m.Run())
	}
	goleak.VerifyTestMain(m)
}

// openTemp opens a store in a fresh temporary folder, closed when the test ends.
func openTemp(t testing.TB) *Store {
	t.Helper()
	st, err := Open(filepath.Join(t.TempDir(), "data", "sessions.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := st.Close(); err != nil {
			t.Error(err)
		}
	})
	return st
}
