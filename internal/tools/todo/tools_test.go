package todo

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/tool"
)

func TestDeclarations(t *testing.T) {
	f := newFixture()
	for _, tl := range []tool.Tool{f.write, f.read} {
		if tl.Level() != tool.LevelRead || tl.Kind() != tool.KindThink || tl.Spec().Description == "" {
			t.Errorf("%s: level %s, kind %s, description %q", tl.Name(), tl.Level(), tl.Kind(), tl.Spec().Description)
		}
	}
	if f.write.Name() != "todo_write" || f.read.Name() != "todo_read" {
		t.Fatalf("names %s, %s", f.write.Name(), f.read.Name())
	}
	schema := string(f.write.Spec().Schema)
	for _, s := range []string{`"todos"`, `"merge"`, `"id"`, `"content"`, `"status"`, `"in_progress"`} {
		if !strings.Contains(schema, s) {
			t.Errorf("todo_write schema lacks %s: %s", s, schema)
		}
	}
}

func TestReplaceShowsTheListAndPublishesIt(t *testing.T) {
	f := newFixture()
	r := f.mustWrite(t, `{"todos":[
		{"id":"1","content":"Read the parser","status":"completed"},
		{"id":"2","content":"Fix the bug","status":"in_progress"},
		{"id":"3","content":"Add a test"}]}`)
	want := items("1|Read the parser|completed", "2|Fix the bug|in_progress", "3|Add a test|pending")
	sameItems(t, "list", f.list.Items(), want)
	wantText := "[x] 1: Read the parser (completed)\n[>] 2: Fix the bug (in_progress)\n[ ] 3: Add a test (pending)\n" +
		"Replaced the todo list. 3 items: 1 completed, 1 in progress, 1 pending."
	if r.Text != wantText {
		t.Errorf("result:\n%s\nwant:\n%s", r.Text, wantText)
	}
	if len(f.rec.kinds) != 1 || f.rec.kinds[0] != "todo_list" {
		t.Fatalf("recorded %v", f.rec.kinds)
	}
	sameItems(t, "recorded list", FromEvents(f.rec.payloads()), want)
	if l := f.sink.lists(); len(l) != 1 {
		t.Fatalf("emitted %d lists", len(l))
	} else {
		sameItems(t, "emitted list", l[0], want)
	}

	// A second replace drops what it does not name.
	f.mustWrite(t, `{"todos":[{"id":"a","content":"Something else"}]}`)
	sameItems(t, "replaced", f.list.Items(), items("a|Something else|pending"))
	if len(f.rec.kinds) != 2 || len(f.sink.lists()) != 2 {
		t.Fatalf("recorded %d, emitted %d", len(f.rec.kinds), len(f.sink.lists()))
	}
	sameItems(t, "second event", FromEvents(f.rec.payloads()), f.list.Items())
}

func TestMergeUpdatesByIDAddsAndKeeps(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":"1","content":"One","status":"in_progress"},{"id":"2","content":"Two"},{"id":"3","content":"Three"}]}`)
	r := f.mustWrite(t, `{"merge":true,"todos":[
		{"id":"1","status":"completed"},
		{"id":"3","content":"Three, reworded","status":"in_progress"},
		{"id":"4","content":"Four"}]}`)
	want := items("1|One|completed", "2|Two|pending", "3|Three, reworded|in_progress", "4|Four|pending")
	sameItems(t, "merged", f.list.Items(), want)
	if !strings.Contains(r.Text, "Updated the todo list. 4 items: 1 completed, 1 in progress, 2 pending.") {
		t.Errorf("result: %s", r.Text)
	}
	sameItems(t, "recorded whole list", FromEvents(f.rec.payloads()), want)
	lists := f.sink.lists()
	sameItems(t, "emitted whole list", lists[len(lists)-1], want)
}

func TestNumericIDs(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":1,"content":"One"},{"id":"2","content":"Two"}]}`)
	f.mustWrite(t, `{"merge":true,"todos":[{"id":2,"status":"completed"}]}`)
	sameItems(t, "list", f.list.Items(), items("1|One|pending", "2|Two|completed"))
	if r := call(t, f.write, `{"todos":[{"id":1.5,"content":"x"}]}`); !r.IsError {
		t.Errorf("a fractional id was accepted: %s", r.Text)
	}
}

func TestEmptyReplaceClearsTheList(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":"1","content":"One"}]}`)
	r := f.mustWrite(t, `{"todos":[]}`)
	if len(f.list.Items()) != 0 || !strings.Contains(r.Text, "empty") {
		t.Fatalf("items %+v, result %q", f.list.Items(), r.Text)
	}
	if got := FromEvents(f.rec.payloads()); got == nil || len(got) != 0 {
		t.Fatalf("the cleared list must be recorded as empty, got %#v", got)
	}
}

func TestOneInProgress(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":"a","content":"Alpha","status":"in_progress"},{"id":"b","content":"Beta"}]}`)
	before := f.list.Items()

	for _, args := range []string{
		`{"merge":true,"todos":[{"id":"b","status":"in_progress"}]}`,
		`{"todos":[{"id":"x","content":"Ex","status":"in_progress"},{"id":"y","content":"Why","status":"in_progress"}]}`,
	} {
		r := call(t, f.write, args)
		if !r.IsError || !strings.Contains(r.Text, "at most one item may be in_progress") {
			t.Fatalf("%s: %+v", args, r)
		}
		oneSentence(t, r.Text)
		sameItems(t, "after the refusal", f.list.Items(), before)
	}
	r := call(t, f.write, `{"merge":true,"todos":[{"id":"b","status":"in_progress"}]}`)
	if !strings.Contains(r.Text, `"a" (Alpha)`) || !strings.Contains(r.Text, `"b" (Beta)`) {
		t.Errorf("the refusal must name both items: %s", r.Text)
	}
	if len(f.rec.kinds) != 1 || len(f.sink.lists()) != 1 {
		t.Fatalf("a refused write was published: %d events, %d lists", len(f.rec.kinds), len(f.sink.lists()))
	}

	// Handing over in one write is fine.
	f.mustWrite(t, `{"merge":true,"todos":[{"id":"a","status":"completed"},{"id":"b","status":"in_progress"}]}`)
	sameItems(t, "handed over", f.list.Items(), items("a|Alpha|completed", "b|Beta|in_progress"))
}

func TestRefusals(t *testing.T) {
	cases := []struct{ name, args, want string }{
		{"missing todos", `{}`, `"todos"`},
		{"todos not an array", `{"todos":"a"}`, `"todos"`},
		{"unknown status", `{"todos":[{"id":"1","content":"x","status":"done"}]}`, `"pending", "in_progress", "completed"`},
		{"empty id", `{"todos":[{"id":" ","content":"x"}]}`, "empty id"},
		{"duplicate id", `{"todos":[{"id":"1","content":"x"},{"id":"1","content":"y"}]}`, `"1" appears more than once`},
		{"empty content", `{"merge":true,"todos":[{"id":"1","content":"  "}]}`, "empty content"},
		{"content missing on replace", `{"todos":[{"id":"1","status":"pending"}]}`, "needs content"},
		{"new id without content on merge", `{"merge":true,"todos":[{"id":"9","status":"completed"}]}`, `"9" is not on the list`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			f := newFixture()
			f.mustWrite(t, `{"todos":[{"id":"1","content":"One"}]}`)
			r := call(t, f.write, c.args)
			if !r.IsError || !strings.Contains(r.Text, c.want) {
				t.Fatalf("result %+v, want an error naming %s", r, c.want)
			}
			oneSentence(t, r.Text)
			sameItems(t, "after the refusal", f.list.Items(), items("1|One|pending"))
			if len(f.rec.kinds) != 1 || len(f.sink.lists()) != 1 {
				t.Fatalf("a refused write was published")
			}
		})
	}
}

func TestRead(t *testing.T) {
	f := newFixture()
	if r := call(t, f.read, `{}`); r.IsError || !strings.Contains(r.Text, "The todo list is empty") {
		t.Fatalf("empty read: %+v", r)
	}
	f.mustWrite(t, `{"todos":[{"id":"a","content":"Alpha","status":"completed"},{"id":"b","content":"Beta","status":"in_progress"}]}`)
	r := call(t, f.read, ``)
	want := "[x] a: Alpha (completed)\n[>] b: Beta (in_progress)\n2 items: 1 completed, 1 in progress, 0 pending."
	if r.IsError || r.Text != want {
		t.Fatalf("read:\n%s\nwant:\n%s", r.Text, want)
	}
	f.mustWrite(t, `{"merge":true,"todos":[{"id":"b","status":"completed"}]}`)
	if r := call(t, f.read, `{}`); !strings.HasSuffix(r.Text, "Every item is completed.") {
		t.Errorf("all done: %s", r.Text)
	}
	if len(f.rec.kinds) != 2 {
		t.Errorf("todo_read recorded something: %v", f.rec.kinds)
	}
}

func TestStoreFailureChangesNothing(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":"1","content":"One"}]}`)
	f.rec.fail = true
	r := call(t, f.write, `{"todos":[{"id":"2","content":"Two"}]}`)
	if !r.IsError || !strings.Contains(r.Text, "disk full") || !strings.Contains(r.Text, "nothing changed") {
		t.Fatalf("result %+v", r)
	}
	oneSentence(t, r.Text)
	sameItems(t, "after the failure", f.list.Items(), items("1|One|pending"))
	if len(f.sink.lists()) != 1 {
		t.Fatalf("an unstored list was shown")
	}
}

func TestNilRecorderAndSink(t *testing.T) {
	l := NewList(nil, nil)
	r := call(t, Tools(l)[0], `{"todos":[{"id":"1","content":"One"}]}`)
	if r.IsError {
		t.Fatal(r.Text)
	}
	sameItems(t, "list", l.Items(), items("1|One|pending"))
}

func TestItemsIsACopy(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":"1","content":"One"}]}`)
	got := f.list.Items()
	got[0].Content = "changed"
	f.sink.lists()[0][0].Content = "changed too"
	sameItems(t, "list", f.list.Items(), items("1|One|pending"))
}

func TestFromEventsAndRestore(t *testing.T) {
	f := newFixture()
	f.mustWrite(t, `{"todos":[{"id":"1","content":"One","status":"in_progress"},{"id":"2","content":"Two"}]}`)
	f.mustWrite(t, `{"merge":true,"todos":[{"id":"1","status":"completed"}]}`)
	want := f.list.Items()

	// Resume: a new list restored from the stored payloads, a broken one at the end.
	payloads := append(f.rec.payloads(), json.RawMessage(`{"items":`))
	restored := newFixture()
	restored.list.Restore(FromEvents(payloads))
	sameItems(t, "restored", restored.list.Items(), want)
	if len(restored.rec.kinds) != 0 || len(restored.sink.lists()) != 0 {
		t.Fatalf("Restore published something")
	}
	if r := call(t, restored.read, `{}`); !strings.Contains(r.Text, "[x] 1: One (completed)") {
		t.Errorf("todo_read after resume: %s", r.Text)
	}
	// The rule holds across the resume: 2 may start, and only one item at a time.
	restored.mustWrite(t, `{"merge":true,"todos":[{"id":"2","status":"in_progress"}]}`)
	if r := call(t, restored.write, `{"merge":true,"todos":[{"id":"3","content":"Three","status":"in_progress"}]}`); !r.IsError {
		t.Fatalf("a second in_progress after resume: %s", r.Text)
	}

	if FromEvents(nil) != nil || FromEvents([]json.RawMessage{json.RawMessage(`"junk"`)}) != nil {
		t.Errorf("no list must give nil")
	}
}

func TestSinkMayReadTheList(t *testing.T) {
	var l *List
	var seen []face.TodoItem
	l = NewList(nil, func(face.Event) { seen = l.Items() })
	call(t, Tools(l)[0], `{"todos":[{"id":"1","content":"One"}]}`)
	sameItems(t, "seen by the sink", seen, items("1|One|pending"))
}
