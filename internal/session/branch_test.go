package session

import (
	"database/sql"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// A rewind's branch is never the folder's latest by being cut: the session cut stays
// first in the listing and is the one --continue picks, the branch says which session
// it was cut from, and only once someone goes on in the branch is it the latest.
func TestBranchLeavesTheSessionCutAsTheLatest(t *testing.T) {
	st := openTemp(t)
	other := mustCreate(t, st, "/elsewhere") // older, in another folder
	if err := other.AppendMessage(userText("elsewhere")); err != nil {
		t.Fatal(err)
	}
	live := mustCreate(t, st, "/p")
	for _, m := range conversation() {
		if err := live.AppendMessage(m); err != nil {
			t.Fatal(err)
		}
	}
	if err := live.AppendEvent("checkpoint", map[string]int{"n": 1}); err != nil {
		t.Fatal(err)
	}
	bid, err := live.Branch(2, "list the files (before the rewind to prompt 2)")
	if err != nil {
		t.Fatal(err)
	}
	last, err := st.Last("/p")
	if err != nil {
		t.Fatal(err)
	}
	if last.ID() != live.ID() {
		t.Errorf("--continue picks %s, want the session cut %s (the branch is %s)", last.ID(), live.ID(), bid)
	}
	list, err := st.List(0)
	if err != nil {
		t.Fatal(err)
	}
	if got := ids(list); got != strings.Join([]string{live.ID(), bid, other.ID()}, " ") {
		t.Errorf("listed %s; want the session cut %s, its branch %s, then %s", got, live.ID(), bid, other.ID())
	}
	if list[1].BranchOf != live.ID() || list[0].BranchOf != "" || list[1].Messages != len(conversation()) || list[0].Messages != 2 {
		t.Errorf("listing: %+v", list[:2])
	}

	// Someone goes on in the branch (gantry -r BRANCH): now it is the latest.
	b, err := st.Get(bid)
	if err != nil {
		t.Fatal(err)
	}
	if err := b.AppendMessage(userText("go on here")); err != nil {
		t.Fatal(err)
	}
	if last, err = st.Last("/p"); err != nil || last.ID() != bid {
		t.Errorf("after going on in the branch --continue picks %v (%v), want %s", last, err, bid)
	}
	if list, err = st.List(1); err != nil || len(list) != 1 || list[0].ID != bid {
		t.Errorf("after going on in the branch the newest is %+v (%v), want %s", list, err, bid)
	}
}

func ids(list []Info) string {
	var out []string
	for _, in := range list {
		out = append(out, in.ID)
	}
	return strings.Join(out, " ")
}

// A database written before branches were marked is listed as it is by a reader
// (which cannot migrate it), and migrated by the next gantry that opens it to write.
func TestStoreBeforeBranchesIsListedAndMigrated(t *testing.T) {
	if !strings.Contains(migrations[branchesVersion-1], "branch_of") {
		t.Fatalf("migration %d does not add branch_of", branchesVersion)
	}
	path := filepath.Join(t.TempDir(), "sessions.db")
	db, err := sql.Open("sqlite", "file:"+path)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range migrations[:branchesVersion-1] {
		if _, err := db.Exec(m); err != nil {
			t.Fatal(err)
		}
	}
	for _, q := range []string{
		fmt.Sprintf("PRAGMA user_version = %d", branchesVersion-1),
		`INSERT INTO sessions (id, cwd, title, created, updated) VALUES ('old1', '/p', 'from before', 1, 2)`,
	} {
		if _, err := db.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	if err := db.Close(); err != nil {
		t.Fatal(err)
	}

	ro, err := OpenRead(path)
	if err != nil {
		t.Fatal(err)
	}
	list, err := ro.List(0)
	if cerr := ro.Close(); cerr != nil {
		t.Error(cerr)
	}
	if err != nil || len(list) != 1 || list[0].ID != "old1" || list[0].Title != "from before" || list[0].BranchOf != "" {
		t.Fatalf("a reader lists the old store as %+v (%v)", list, err)
	}

	st, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	var version int
	if err := st.db.QueryRow("PRAGMA user_version").Scan(&version); err != nil || version != len(migrations) {
		t.Fatalf("migrated to version %d (%v), want %d", version, err, len(migrations))
	}
	last, err := st.Last("/p")
	if err != nil || last.ID() != "old1" {
		t.Fatalf("--continue in the migrated store: %v (%v)", last, err)
	}
	if list, err = st.List(0); err != nil || len(list) != 1 || list[0].BranchOf != "" {
		t.Errorf("the migrated store lists %+v (%v)", list, err)
	}
}
