package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"regexp"
	"sync"
)

// maxLine is the longest message passed to the SDK, whose reader gives up on a line
// of 10 MiB and drops the connection with it.
const maxLine = 10<<20 - 1

// guard copies the client's messages from in to the SDK's reader, answering itself
// those the SDK would drop without a word or die of: a line that is not JSON (-32700),
// one that is not a JSON-RPC message (-32600) and one too long to read (-32600). It
// returns when in ends.
func guard(in io.Reader, sdkIn *io.PipeWriter, out io.Writer, log *slog.Logger) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for {
		line, size, err := readLine(r, buf[:0])
		buf = line
		if size > maxLine {
			reply(out, idOf(line), -32600, "Invalid request", fmt.Sprintf(
				"the message is %d bytes, more than the %d a line may hold; send large content as a resource link", size, maxLine))
			log.Warn("refused an oversized message", "bytes", size)
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if forward := check(msg, out, log); forward {
				if _, werr := sdkIn.Write(append(msg, '\n')); werr != nil {
					return nil // the connection is closed
				}
			}
		}
		if err != nil {
			_ = sdkIn.Close()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// readLine reads one line into buf. When the line is longer than maxLine it keeps
// only its first 4 KiB (for its id) and size says how long it was.
func readLine(r *bufio.Reader, buf []byte) (line []byte, size int, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		size += len(frag)
		switch {
		case size <= maxLine:
			buf = append(buf, frag...)
		case len(buf) < 4096:
			buf = append(buf, frag[:min(len(frag), 4096-len(buf))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, size, err
		}
	}
}

// check answers a message that is not a JSON-RPC request, response or notification,
// and says whether to pass it on.
func check(msg []byte, out io.Writer, log *slog.Logger) bool {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(msg, &fields); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) || !json.Valid(msg) {
			reply(out, nil, -32700, "Parse error", "the line is not valid JSON: "+err.Error())
		} else {
			reply(out, nil, -32600, "Invalid request", "a message must be one JSON object (batches are not supported)")
		}
		log.Warn("refused a malformed message", "err", err)
		return false
	}
	id, hasID := fields["id"]
	if hasID && !validID(id) {
		reply(out, nil, -32600, "Invalid request", "the id must be a string, a number or null")
		return false
	}
	method, hasMethod := fields["method"]
	if hasMethod {
		var name string
		if json.Unmarshal(method, &name) != nil || name == "" {
			if hasID {
				reply(out, id, -32600, "Invalid request", "the method must be a non-empty string")
			}
			return false
		}
		return true
	}
	_, hasResult := fields["result"]
	_, hasError := fields["error"]
	if hasID && (hasResult || hasError) {
		return true // a response to one of the agent's requests
	}
	reply(out, id, -32600, "Invalid request", "a message needs a method (request or notification) or a result or error (response)")
	return false
}

func validID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return false
	}
	switch raw[0] {
	case '"', 'n':
		return true
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		var n json.Number
		return json.Unmarshal(raw, &n) == nil
	}
	return false
}

// idPattern finds a top-level-looking "id" in the head of a message too long to parse.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]+)`) })

func idOf(head []byte) json.RawMessage {
	if m := idPattern().FindSubmatch(head); m != nil {
		return m[1]
	}
	return nil
}

// reply writes a JSON-RPC error response; a nil id is written as null.
func reply(out io.Writer, id json.RawMessage, code int, message, detail string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": message, "data": map[string]string{"error": detail}}})
	_, _ = out.Write(append(b, '\n'))
}
