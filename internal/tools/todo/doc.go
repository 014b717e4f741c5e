// Package todo declares todo_write and todo_read, the session's checklist of the work
// in hand. The List is the session's state: every change is recorded with the session
// as a "todo_list" event holding the whole list and shown to the faces as a
// face.TodoList; on resume FromEvents and Restore bring it back. At most one item is
// in_progress at a time, and a write that would break that is refused whole.
package todo
