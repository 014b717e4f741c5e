package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// maxEventData is how much of one event's data the stream guard keeps to check it
// is JSON; a longer event is passed on unchecked (the SDK reading it says what is
// wrong, if anything).
const maxEventData = 1 << 20

// MalformedEventError is an event of a model's stream that cannot be read: its data
// is not JSON, or not a JSON object.
type MalformedEventError struct {
	// Offset is the position in the response body of the byte where reading failed.
	Offset int64
	// Reason is what is wrong, as the JSON parser says it.
	Reason string
	// Data is the event's data, cut to a readable length.
	Data string
}

func (e *MalformedEventError) Error() string {
	return fmt.Sprintf("the model's stream sent an event gantry cannot read: %s at byte %d of the stream (the event's data: %s)",
		e.Reason, e.Offset, e.Data)
}

// sseScan reads a server-sent event stream as it passes, line by line, to tell
// events with content from keep-alives and to find an event whose data is not a
// JSON object. It keeps at most one line and one event's data.
type sseScan struct {
	off  int64  // bytes fed so far
	line []byte // the current line, without its end
	over bool   // the current line is longer than maxEventData

	event     string
	data      []byte
	hasData   bool
	dataOver  bool
	dataStart int64 // offset of the first data byte of the event
}

// feed scans the next bytes of the stream. content reports that an event with
// content ended in them. For an event whose data is not a JSON object it returns
// keep, the number of bytes of p before the line that ends that event, and the
// error.
func (s *sseScan) feed(p []byte) (content bool, keep int, err error) {
	start := 0
	for start < len(p) {
		i := bytes.IndexByte(p[start:], '\n')
		if i < 0 {
			s.add(p[start:], s.off+int64(start))
			break
		}
		lineAt := start - len(s.line) // where the line began, relative to p
		s.add(p[start:start+i], s.off+int64(start))
		line := bytes.TrimSuffix(s.line, []byte("\r"))
		over := s.over
		lineOff := s.off + int64(lineAt)
		s.line, s.over = s.line[:0], false
		if len(line) == 0 && !over {
			c, bad := s.dispatch()
			if bad != nil {
				s.off += int64(start)
				return content, max(lineAt, 0), bad
			}
			content = content || c
		} else {
			s.field(line, over, lineOff)
		}
		start += i + 1
	}
	s.off += int64(len(p))
	return content, len(p), nil
}

// add appends b to the current line, up to the bound.
func (s *sseScan) add(b []byte, _ int64) {
	room := maxEventData + 16 - len(s.line)
	if len(b) > room {
		b = b[:max(room, 0)]
		s.over = true
	}
	s.line = append(s.line, b...)
}

// field takes one line of an event; at is the line's offset in the stream.
func (s *sseScan) field(line []byte, over bool, at int64) {
	if line[0] == ':' {
		return // a comment: a keep-alive
	}
	name, value, found := bytes.Cut(line, []byte(":"))
	skip := len(name) + 1
	if found && len(value) > 0 && value[0] == ' ' {
		value = value[1:]
		skip++
	}
	switch string(name) {
	case "event":
		s.event = string(value)
	case "data":
		if !s.hasData {
			s.dataStart = at + int64(skip)
		} else {
			s.data = append(s.data, '\n')
		}
		s.hasData = true
		if over || len(s.data)+len(value) > maxEventData {
			s.dataOver = true
			return
		}
		s.data = append(s.data, value...)
	}
}

// dispatch ends the current event: content says it carried content (not a ping);
// bad is set when its data is not a JSON object.
func (s *sseScan) dispatch() (content bool, bad error) {
	defer func() {
		s.event, s.data, s.hasData, s.dataOver = "", s.data[:0], false, false
	}()
	if !s.hasData {
		return false, nil // no event, as the SSE standard has it
	}
	if keepAlive(s.event) || s.dataOver {
		return !keepAlive(s.event), nil
	}
	d := bytes.TrimSpace(s.data)
	if string(d) == "[DONE]" {
		return true, nil
	}
	var ev struct {
		Type string `json:"type"`
	}
	err := json.Unmarshal(d, &ev)
	var syn *json.SyntaxError
	var typ *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syn):
		return false, &MalformedEventError{Offset: s.dataStart + syn.Offset, Reason: syn.Error(), Data: excerpt(s.data)}
	case errors.As(err, &typ) && typ.Field == "":
		return false, &MalformedEventError{Offset: s.dataStart, Reason: "it is not a JSON object but " + article(typ.Value), Data: excerpt(s.data)}
	}
	return !keepAlive(ev.Type), nil
}

// keepAlive says whether an event's name or type is a keep-alive: Anthropic's
// ping, the keepalive some servers and proxies send.
func keepAlive(kind string) bool {
	switch kind {
	case "ping", "keepalive", "keep-alive", "keep_alive":
		return true
	}
	return false
}

// article is a JSON kind with its article: "an array", "a string".
func article(kind string) string {
	if strings.IndexAny(kind[:1], "aeiou") == 0 {
		return "an " + kind
	}
	return "a " + kind
}

// excerpt is an event's data for a message: quoted, cut after 120 bytes.
func excerpt(b []byte) string {
	const n = 120
	if len(b) <= n {
		return fmt.Sprintf("%q", b)
	}
	cut := n
	for cut > 0 && !utf8.RuneStart(b[cut]) {
		cut--
	}
	return fmt.Sprintf("%q…", b[:cut])
}
