package agent

import (
	"errors"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
)

// Recorder stores what happens in a session as it happens. The session store
// implements it; nil means nothing is stored. Each model response and each batch of
// tool results is a message; each settled call is also a tool_finished event the
// moment it ends, so a kill in the middle of a batch keeps the results already had.
// A call is in the assistant message, the usage beside it; that it starts to run is
// a tool_running event.
//
// Writes may be asynchronous; Flush is the loop's barrier. The loop flushes before
// every model request (so the store never holds less than the model saw), before a
// response's calls start (so no call runs that the store does not know), and after
// the tool_running event of a call that may have an effect, before it runs (so that
// a resumed session can tell a call that may have taken effect from one that never
// ran). The first error stops the turn there.
type Recorder interface {
	// Flush returns once everything handed over is on disk, with the errors of
	// writes not reported yet.
	Flush() error
	AppendMessage(m llm.Message) error
	// AppendResponse stores a complete model response with its usage and cost.
	AppendResponse(m llm.Message, u llm.Usage, cost float64) error
	AppendEvent(kind string, payload any) error
	// MarkCompaction records that the model's context became history.
	MarkCompaction(history []llm.Message) error
	// AddUsage records usage that belongs to no stored response (a subagent's, a
	// summary's).
	AddUsage(u llm.Usage, cost float64) error
	EndTurn() error
}

// stored notes a store error. The first of a turn stops it at the next barrier
// (see Recorder): before the next model request or the next call runs; nothing more
// of the turn is written. The turn's TurnEnded says it (Err and StoreErr).
func (a *Agent) stored(err error) {
	if err == nil {
		return
	}
	a.mu.Lock()
	if a.storeErr == nil {
		a.storeErr = err
	}
	a.mu.Unlock()
}

// failed returns the running turn's store error, if any.
func (a *Agent) failed() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.storeErr
}

// durable is the loop's barrier: it waits until everything handed to the store is
// on disk and returns the turn's store error, if any.
func (a *Agent) durable() error {
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.Flush())
	}
	return a.failed()
}

// StoreError says a store error of the session's made outside a turn (a title that
// could not be written): a notice, since no turn ends with it.
func (a *Agent) StoreError(err error) {
	if err != nil {
		a.emit(face.Notice{Text: err.Error()})
	}
}

// StoreStopped is the error a turn ends with when the store could not write: the
// turn stopped at that record, before the next model request or call.
type StoreStopped struct{ Err error }

func (e *StoreStopped) Error() string {
	var d interface{ Damaged() bool }
	if errors.As(e.Err, &d) && d.Damaged() {
		// Nothing more can be written to that file: the advice is the error's own.
		return e.Err.Error() + "; the turn stopped there, before anything more ran"
	}
	return e.Err.Error() + "; the turn stopped there, before anything more ran (once it can be written, --continue goes on from there)"
}

func (e *StoreStopped) Unwrap() error { return e.Err }

// takeStoreErr returns the turn's first store error and forgets it.
func (a *Agent) takeStoreErr() error {
	a.mu.Lock()
	defer a.mu.Unlock()
	err := a.storeErr
	a.storeErr = nil
	return err
}

// record stores an event, unless the store has failed this turn.
func (a *Agent) record(kind string, payload any) {
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.AppendEvent(kind, payload))
	}
}

// appendMessage adds m to the history and stores it (a store error is noted, see
// stored).
func (a *Agent) appendMessage(m llm.Message) {
	a.mu.Lock()
	a.history = append(a.history, m)
	a.mu.Unlock()
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.AppendMessage(m))
	}
}

// appendResponse adds a complete response to the history and stores it with its usage.
func (a *Agent) appendResponse(m llm.Message, u llm.Usage, cost float64) {
	a.mu.Lock()
	a.history = append(a.history, m)
	a.mu.Unlock()
	if a.Store != nil && a.failed() == nil {
		a.stored(a.Store.AppendResponse(m, u, cost))
	}
}

// storeStopped ends a turn on the store's error.
func storeStopped(end face.TurnEnded, err error) face.TurnEnded {
	end.StopReason, end.Err = "error", &StoreStopped{Err: err}
	return end
}
