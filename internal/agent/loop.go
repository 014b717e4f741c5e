package agent

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"
)

// loopDetector notices the same tool, input and output three times in a row.
type loopDetector struct {
	mu    sync.Mutex
	last  [sha256.Size]byte
	count int
}

// observe records a call and returns the LOOP_DETECTED note on the third identical
// call in a row (and every one after it), else "".
func (d *loopDetector) observe(name string, input json.RawMessage, output string) string {
	h := sha256.New()
	h.Write([]byte(name))
	h.Write([]byte{0})
	h.Write(canonicalJSON(input))
	h.Write([]byte{0})
	h.Write([]byte(output))
	var key [sha256.Size]byte
	copy(key[:], h.Sum(nil))
	d.mu.Lock()
	defer d.mu.Unlock()
	if key == d.last && d.count > 0 {
		d.count++
	} else {
		d.last, d.count = key, 1
	}
	if d.count >= 3 {
		return fmt.Sprintf("[LOOP_DETECTED: you called %s %d times in a row with the same input and got the same output; stop repeating it and change your approach.]", name, d.count)
	}
	return ""
}

// canonicalJSON makes inputs that differ only in spacing or key order compare equal.
func canonicalJSON(raw json.RawMessage) []byte {
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return bytes.TrimSpace(raw)
	}
	b, err := json.Marshal(v) // map keys are sorted
	if err != nil {
		return raw
	}
	return b
}
