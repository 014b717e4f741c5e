package acp

import (
	"bytes"
	"io"
	"sync"
)

// output is the agent's stdout: the SDK and the input guard both write whole
// messages to it under one lock. It also watches for the response that announces a
// new session, so that the session's first updates go out after it (the protocol
// requires the session/new response to come first).
type output struct {
	mu      sync.Mutex
	w       io.Writer
	waiting map[string]func() // session id → run once its session/new response is out
}

func newOutput(w io.Writer) *output { return &output{w: w, waiting: map[string]func(){}} }

// Write writes one message.
func (o *output) Write(p []byte) (int, error) {
	o.mu.Lock()
	_, err := o.w.Write(withNullOldText(p))
	n := len(p)
	if err != nil {
		n = 0
	}
	var ready []func()
	if len(o.waiting) > 0 && bytes.Contains(p, []byte(`"result"`)) && !bytes.Contains(p, []byte(`"method"`)) {
		for id, f := range o.waiting {
			if bytes.Contains(p, []byte(`"sessionId":"`+id+`"`)) {
				ready = append(ready, f)
				delete(o.waiting, id)
			}
		}
	}
	o.mu.Unlock()
	for _, f := range ready {
		go f()
	}
	return n, err
}

// afterResponse runs f once the response naming session id has been written.
func (o *output) afterResponse(id string, f func()) {
	o.mu.Lock()
	o.waiting[id] = f
	o.mu.Unlock()
}

// forget drops a waiting session whose response will never be written.
func (o *output) forget(id string) {
	o.mu.Lock()
	delete(o.waiting, id)
	o.mu.Unlock()
}
