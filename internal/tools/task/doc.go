// Package task declares task, the session's board of larger pieces of work: tasks
// with ids t1, t2, …, a title and description, the tasks that block them, and a
// status that only moves forward, pending → in_progress → completed. A task starts
// only once its blockers are completed. The Board is the session's state: every change
// is recorded with the session as a "task_board" event holding the whole board, and
// on resume FromEvents and Restore bring it back.
package task
