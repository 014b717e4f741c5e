package task

import (
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/tool"
)

func TestDeclaration(t *testing.T) {
	tl := newFixture().tool
	if tl.Name() != "task" || tl.Level() != tool.LevelRead || tl.Kind() != tool.KindThink {
		t.Fatalf("%s, level %s, kind %s", tl.Name(), tl.Level(), tl.Kind())
	}
	schema := string(tl.Spec().Schema)
	for _, s := range []string{`"action"`, `"create"`, `"title"`, `"description"`, `"blocked_by"`, `"task_id"`, `"status"`, `"ready"`} {
		if !strings.Contains(schema, s) {
			t.Errorf("schema lacks %s: %s", s, schema)
		}
	}
	if strings.Contains(schema, "taskId") {
		t.Errorf("schema names the former taskId: %s", schema)
	}
	if !strings.Contains(tl.Spec().Description, "pending → in_progress → completed") {
		t.Errorf("description: %s", tl.Spec().Description)
	}
}

func TestCreateGetList(t *testing.T) {
	f := newFixture()
	if got := f.ok(t, `{"action":"list"}`); got != "There are no tasks yet; create one with action create." {
		t.Errorf("empty list: %q", got)
	}
	if got := f.ok(t, `{"action":"create","title":"Design the schema","description":"tables and keys"}`); got != "Created t1: Design the schema. It is pending; it can start now." {
		t.Errorf("create: %q", got)
	}
	if got := f.ok(t, `{"action":"create","title":"Write the API","blocked_by":["t1"]}`); got != "Created t2: Write the API. It is pending and blocked by t1 (pending)." {
		t.Errorf("create blocked: %q", got)
	}
	f.ok(t, `{"action":"create","title":"Write the docs"}`)

	ts := f.board.Tasks()
	if len(ts) != 3 || ts[0].ID != "t1" || ts[1].ID != "t2" || ts[2].ID != "t3" || ts[0].Description != "tables and keys" ||
		ts[1].BlockedBy[0] != "t1" || ts[0].Status != Pending || ts[0].Created.IsZero() || ts[0].Updated != ts[0].Created {
		t.Fatalf("board %+v", ts)
	}

	get := f.ok(t, `{"action":"get","task_id":"t1"}`)
	for _, want := range []string{"t1: Design the schema", "Status: pending (ready to start)", "Blocks: t2 (Write the API, pending)", "Description:\ntables and keys", "Created 2026-05-01"} {
		if !strings.Contains(get, want) {
			t.Errorf("get lacks %q:\n%s", want, get)
		}
	}
	if got := f.ok(t, `{"action":"get","taskId":"t1"}`); got != get+"\n\n(Note: taskId is deprecated; use task_id.)" {
		t.Errorf("get with the former taskId:\n%s", got)
	}
	if get := f.ok(t, `{"action":"get","task_id":"t2"}`); !strings.Contains(get, "Blocked by: t1 (Design the schema, pending)") || !strings.Contains(get, "waiting on its blockers") {
		t.Errorf("get t2:\n%s", get)
	}

	want := "t1 [pending] Design the schema\nt2 [pending] Write the API — blocked by t1 (pending)\nt3 [pending] Write the docs\n" +
		"3 tasks: 0 completed, 0 in progress, 3 pending, 2 ready to start."
	if got := f.ok(t, `{"action":"list"}`); got != want {
		t.Errorf("list:\n%s\nwant:\n%s", got, want)
	}
	if got := f.ok(t, `{"action":"list","ready":true}`); !strings.Contains(got, "t1 [pending]") || strings.Contains(got, "t2 [") || !strings.Contains(got, "t3 [pending]") {
		t.Errorf("ready list:\n%s", got)
	}
	if f.rec.count() != 3 {
		t.Errorf("get and list must not record: %d events", f.rec.count())
	}
}

func TestIDsAsNumbers(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"One"}`)
	f.ok(t, `{"action":"create","title":"Two","blocked_by":[1]}`)
	for _, id := range []string{`1`, `"1"`, `"T1"`, `" t1 "`} {
		if got := f.ok(t, `{"action":"get","task_id":`+id+`}`); !strings.HasPrefix(got, "t1: One") {
			t.Errorf("task_id %s: %s", id, got)
		}
	}
	f.ok(t, `{"action":"update","task_id":1,"status":"completed"}`)
	if f.status(t, "t1") != Completed || f.board.Tasks()[1].BlockedBy[0] != "t1" {
		t.Fatalf("board %+v", f.board.Tasks())
	}
}

func TestStatusFlow(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"One"}`)
	f.ok(t, `{"action":"create","title":"Two"}`)
	created := f.board.Tasks()[0].Updated

	if got := f.ok(t, `{"action":"update","task_id":"t1","status":"in_progress"}`); got != "Updated t1: status pending → in_progress." {
		t.Errorf("start: %q", got)
	}
	if !f.board.Tasks()[0].Updated.After(created) {
		t.Errorf("updated time not moved")
	}
	f.refused(t, `{"action":"update","task_id":"t1","status":"pending"}`, "t1 is in_progress and cannot go back to pending")
	f.ok(t, `{"action":"update","task_id":"t1","status":"completed"}`)
	f.refused(t, `{"action":"update","task_id":"t1","status":"in_progress"}`, "cannot go back")
	f.refused(t, `{"action":"update","task_id":"t1","status":"pending"}`, "cannot go back")
	f.refused(t, `{"action":"update","task_id":"t1","status":"done"}`, `"pending", "in_progress", "completed"`)

	// Skipping forward is allowed; staying put changes and records nothing.
	f.ok(t, `{"action":"update","task_id":"t2","status":"completed"}`)
	events := f.rec.count()
	if got := f.ok(t, `{"action":"update","task_id":"t2","status":"completed"}`); !strings.Contains(got, "t2 is unchanged") {
		t.Errorf("no-op: %q", got)
	}
	if f.rec.count() != events {
		t.Errorf("a no-op update was recorded")
	}
}

func TestBlockers(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"Schema"}`)
	f.ok(t, `{"action":"create","title":"API"}`)
	f.ok(t, `{"action":"create","title":"Release","blocked_by":["t1","t2","t1"]}`)
	if got := f.board.Tasks()[2].BlockedBy; len(got) != 2 {
		t.Fatalf("repeated blockers kept: %v", got)
	}
	f.refused(t, `{"action":"create","title":"X","blocked_by":["t9","t8"]}`, "blocked_by names t9 and t8, which do not exist; the tasks are t1, t2 and t3")
	f.refused(t, `{"action":"create","title":"X","blocked_by":["t4"]}`, "t4, which does not exist")

	f.refused(t, `{"action":"update","task_id":"t3","status":"in_progress"}`, "t3 cannot be started while its blockers are not completed: t1 (Schema, pending) and t2 (API, pending)")
	f.refused(t, `{"action":"update","task_id":"t3","status":"completed"}`, "t3 cannot be completed while")

	f.ok(t, `{"action":"update","task_id":"t1","status":"completed"}`)
	if got := f.ok(t, `{"action":"list","ready":true}`); !strings.HasPrefix(got, "Ready to start (pending, every blocker completed):\nt2 [pending] API\n") {
		t.Errorf("ready:\n%s", got)
	}
	f.refused(t, `{"action":"update","task_id":"t3","status":"in_progress"}`, "not completed: t2 (API, pending).")
	f.ok(t, `{"action":"update","task_id":"t2","status":"in_progress"}`)
	if got := f.ok(t, `{"action":"update","task_id":"t2","status":"completed"}`); got != "Updated t2: status in_progress → completed. Ready to start now: t3 (Release)." {
		t.Errorf("completing the last blocker: %q", got)
	}
	f.ok(t, `{"action":"update","task_id":"t3","status":"in_progress"}`)

	// A started task cannot take a blocker that is not completed.
	f.ok(t, `{"action":"create","title":"Late"}`)
	f.refused(t, `{"action":"update","task_id":"t3","blocked_by":["t4"]}`, "t3 is already in_progress, so it cannot be blocked by tasks that are not completed: t4 (Late, pending)")
	if got := f.ok(t, `{"action":"list","ready":true}`); !strings.Contains(got, "t4 [pending] Late") {
		t.Errorf("ready: %s", got)
	}
	f.ok(t, `{"action":"update","task_id":"t4","status":"in_progress"}`)
	if got := f.ok(t, `{"action":"list","ready":true}`); !strings.HasPrefix(got, "No task is ready to start: no task is pending.") {
		t.Errorf("none ready: %s", got)
	}
}

func TestNoneReadyWhileBlocked(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"A"}`)
	f.ok(t, `{"action":"create","title":"B","blocked_by":["t1"]}`)
	f.ok(t, `{"action":"update","task_id":"t1","status":"in_progress"}`)
	if got := f.ok(t, `{"action":"list","ready":true}`); !strings.HasPrefix(got, "No task is ready to start: every pending task waits on a blocker that is not completed.") {
		t.Errorf("%s", got)
	}
}

func TestUpdateFieldsAndCycles(t *testing.T) {
	f := newFixture()
	f.ok(t, `{"action":"create","title":"A"}`)
	f.ok(t, `{"action":"create","title":"B","blocked_by":["t1"]}`)
	f.ok(t, `{"action":"create","title":"C","blocked_by":["t2"]}`)

	got := f.ok(t, `{"action":"update","task_id":"t1","title":" A, renamed ","description":"more"}`)
	if got != `Updated t1: title "A, renamed"; description changed.` {
		t.Errorf("update: %q", got)
	}
	if x := f.board.Tasks()[0]; x.Title != "A, renamed" || x.Description != "more" {
		t.Errorf("t1 = %+v", x)
	}
	f.refused(t, `{"action":"update","task_id":"t1","blocked_by":["t1"]}`, "t1 cannot be blocked by itself")
	f.refused(t, `{"action":"update","task_id":"t1","blocked_by":["t3"]}`, "t1 cannot be blocked by t3, which already waits on it (t3 → t2 → t1)")
	f.refused(t, `{"action":"update","task_id":"t1","blocked_by":["t2"]}`, "(t2 → t1)")

	if got := f.ok(t, `{"action":"update","task_id":"t3","blocked_by":["t1","t2"]}`); got != "Updated t3: blocked by t1 and t2." {
		t.Errorf("replace blockers: %q", got)
	}
	if got := f.ok(t, `{"action":"update","task_id":"t2","blocked_by":[]}`); got != "Updated t2: no longer blocked. Ready to start now: t2 (B)." {
		t.Errorf("clear blockers: %q", got)
	}
	if got := f.board.Tasks()[1].BlockedBy; len(got) != 0 {
		t.Errorf("t2 still blocked by %v", got)
	}
	// t3 still waits on t2, so t2 cannot wait on t3.
	f.refused(t, `{"action":"update","task_id":"t2","blocked_by":["t3"]}`, "(t3 → t2)")
}

func TestRefusals(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"no action", `{}`, `needs the argument "action"`},
		{"unknown action", `{"action":"delete","task_id":"t1"}`, `task has no action "delete"; it has create, get, list and update.`},
		{"create without title", `{"action":"create","description":"d"}`, `action create needs "title"`},
		{"create with an empty title", `{"action":"create","title":"  "}`, "the title is empty"},
		{"create with a status", `{"action":"create","title":"x","status":"in_progress"}`, "create takes no status"},
		{"get without task_id", `{"action":"get"}`, `action get needs "task_id"`},
		{"update without task_id", `{"action":"update","status":"completed"}`, `action update needs "task_id".`},
		{"update without a change", `{"action":"update","task_id":"t1"}`, `needs one of "title", "description", "status" or "blocked_by"`},
		{"update with nothing", `{"action":"update"}`, `needs "task_id" and one of "title"`},
		{"update to an empty title", `{"action":"update","task_id":"t1","title":""}`, "the title is empty"},
		{"empty blocker", `{"action":"create","title":"x","blocked_by":[""]}`, "blocked_by[0] is empty"},
		{"blocker of the wrong type", `{"action":"create","title":"x","blocked_by":[true]}`, `argument "blocked_by[0]" must be a string or a whole number, not true.`},
		{"get an unknown id", `{"action":"get","task_id":"t7"}`, "there is no task t7; the tasks are t1 and t2."},
		{"update an unknown id", `{"action":"update","task_id":"x","status":"completed"}`, "there is no task x; the tasks are t1 and t2."},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.ok(t, `{"action":"create","title":"One"}`)
			f.ok(t, `{"action":"create","title":"Two"}`)
			f.refused(t, c.args, c.want)
		})
	}
	t.Run("unknown id on an empty board", func(t *testing.T) {
		newFixture().refused(t, `{"action":"get","task_id":"t1"}`, "there is no task t1; there are no tasks yet, create one with action create.")
	})
}
