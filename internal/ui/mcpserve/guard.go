package mcpserve

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxLine is the longest line (one JSON-RPC message) gantry mcp reads on stdin; a
// longer one is answered with Invalid Request and skipped.
const MaxLine = mcp.DefaultMaxLineLength

// The JSON-RPC 2.0 error codes the guard answers with.
const (
	codeParse   = -32700
	codeInvalid = -32600
)

// RunStdio serves one client on in and out (gantry mcp's stdin and stdout) until in
// ends or ctx is done. Every line is checked before the SDK reads it: the SDK ends the
// connection on a line it cannot decode (and reads JSON across lines, so a truncated
// one swallows the next), so a line that is not JSON is answered with Parse error
// (-32700), one that is not a JSON-RPC 2.0 request, notification or response (a
// batch, a wrong "jsonrpc", an id that is not a string or an integer) with Invalid
// Request (-32600), and the next line is read as usual.
func (s *Server) RunStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	w := &lineWriter{w: out}
	pr, pw := io.Pipe()
	guarded := make(chan error, 1)
	go func() { guarded <- guard(in, pw, w, s.logf) }()
	// The guard bounds each line, so the SDK's own bound (which counts what its
	// decoder reads ahead) is off.
	err := s.Run(ctx, &mcp.IOTransport{Reader: pr, Writer: nopCloser{w}, MaxLineLength: -1})
	_ = pr.CloseWithError(io.EOF)
	select {
	case gerr := <-guarded:
		return errors.Join(err, gerr)
	default:
		return err // in is still open (ctx ended first); its reader ends with the process
	}
}

// lineWriter writes whole lines to stdout, one writer at a time: the guard's answers
// and the SDK's messages must not interleave.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// guard copies the client's lines from in to the SDK, answering itself those the
// SDK could not read. It returns when in ends or the SDK stops reading.
func guard(in io.Reader, sdk *io.PipeWriter, out io.Writer, logf func(string, ...any)) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	for {
		line, size, err := readLine(r, buf[:0])
		buf = line
		if size > MaxLine {
			reply(out, idOf(line), codeInvalid, "Invalid Request", fmt.Sprintf(
				"the message is %d bytes, more than the %d a line may hold", size, MaxLine))
			logf("refused a message of %d bytes (at most %d)", size, MaxLine)
		} else if msg := bytes.TrimSpace(line); len(msg) > 0 {
			if code, id, why := check(msg); code != 0 {
				reply(out, id, code, errorMessage(code), why)
				logf("refused a malformed message: %s", why)
			} else if _, werr := sdk.Write(append(msg, '\n')); werr != nil {
				return nil // the SDK has stopped reading: the connection is closed
			}
		}
		if err != nil {
			_ = sdk.Close()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return fmt.Errorf("reading stdin: %w", err)
		}
	}
}

func errorMessage(code int) string {
	if code == codeParse {
		return "Parse error"
	}
	return "Invalid Request"
}

// readLine reads one line into buf. When the line is longer than MaxLine it keeps
// only its first 4 KiB (for its id) and size says how long it was.
func readLine(r *bufio.Reader, buf []byte) (line []byte, size int, err error) {
	for {
		frag, err := r.ReadSlice('\n')
		size += len(frag)
		switch {
		case size <= MaxLine:
			buf = append(buf, frag...)
		case len(buf) < 4096:
			buf = append(buf, frag[:min(len(frag), 4096-len(buf))]...)
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, size, err
		}
	}
}

// check says what is wrong with one line: the error code to answer with (0: nothing,
// pass it on), the id to answer to (nil: null) and why.
func check(msg []byte) (code int, id json.RawMessage, why string) {
	if !utf8.Valid(msg) {
		return codeParse, nil, "the line is not UTF-8 text"
	}
	if !json.Valid(msg) {
		var v any
		err := json.Unmarshal(msg, &v)
		return codeParse, nil, "the line is not valid JSON: " + err.Error()
	}
	switch msg[0] {
	case '{':
	case '[':
		return codeInvalid, nil, "batches are not supported (MCP 2025-06-18 removed them): send one message per line"
	default:
		return codeInvalid, nil, "a message must be a JSON object"
	}
	var f map[string]json.RawMessage
	if err := json.Unmarshal(msg, &f); err != nil {
		return codeInvalid, nil, "the message cannot be read: " + err.Error()
	}
	rawID, hasID := f["id"]
	idOK := hasID && validID(rawID)
	if idOK && string(rawID) != "null" {
		id = rawID
	}
	if v, ok := f["jsonrpc"]; !ok || string(v) != `"2.0"` {
		return codeInvalid, id, `"jsonrpc" must be "2.0"`
	}
	if hasID && !idOK {
		return codeInvalid, nil, "the id must be a string or an integer (at most 2^53 in size)"
	}
	method, hasMethod := f["method"]
	_, hasResult := f["result"]
	errField, hasError := f["error"]
	switch {
	case hasMethod:
		var name string
		if method[0] != '"' || json.Unmarshal(method, &name) != nil {
			return codeInvalid, id, `"method" must be a string`
		}
		if hasID && id == nil {
			return codeInvalid, nil, "a request's id must be a string or an integer, not null"
		}
		if p, ok := f["params"]; ok && !objectParams(p) {
			return codeInvalid, id, `"params" must be an object`
		}
		if hasResult || hasError {
			return codeInvalid, id, `a message has a "method" or a "result" or "error", not both`
		}
	case hasResult || hasError:
		if id == nil {
			return codeInvalid, nil, "a response needs the id of the request it answers"
		}
		if hasResult && hasError {
			return codeInvalid, id, `a response has a "result" or an "error", not both`
		}
		if hasError && !wireError(errField) {
			return codeInvalid, id, `"error" must be an object with an integer "code" and a string "message"`
		}
	default:
		return codeInvalid, id, `a message needs a "method" (request or notification) or a "result" or "error" (response)`
	}
	// The SDK's own decoder has the last word (it also bounds the nesting).
	if _, err := jsonrpc.DecodeMessage(msg); err != nil {
		return codeInvalid, id, "the message cannot be read: " + err.Error()
	}
	return 0, nil, ""
}

// maxSafeID is the largest integer id passed on: the SDK reads numbers as float64.
const maxSafeID = 1 << 53

// validID: a string, an integer the SDK reads exactly, or null.
func validID(raw json.RawMessage) bool {
	switch {
	case len(raw) == 0:
		return false
	case raw[0] == '"':
		var s string
		return json.Unmarshal(raw, &s) == nil
	case string(raw) == "null":
		return true
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n <= maxSafeID && n >= -maxSafeID
}

// objectParams: MCP's params are an object; null is taken as absent.
func objectParams(raw json.RawMessage) bool {
	return len(raw) > 0 && (raw[0] == '{' || string(raw) == "null")
}

func wireError(raw json.RawMessage) bool {
	var e struct {
		Code    *json.RawMessage `json:"code"`
		Message *string          `json:"message"`
	}
	if len(raw) == 0 || raw[0] != '{' || json.Unmarshal(raw, &e) != nil || e.Code == nil || e.Message == nil {
		return false
	}
	_, err := strconv.ParseInt(string(*e.Code), 10, 64)
	return err == nil
}

// idPattern finds a top-level-looking "id" in the head of a message too long to parse.
var idPattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?[0-9]{1,15})[\s,}]`) })

func idOf(head []byte) json.RawMessage {
	if m := idPattern().FindSubmatch(head); m != nil && validID(m[1]) {
		return m[1]
	}
	return nil
}

// reply writes a JSON-RPC error response in one write; a nil id is written as null.
func reply(out io.Writer, id json.RawMessage, code int, message, detail string) {
	if len(id) == 0 {
		id = json.RawMessage("null")
	}
	b, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": message, "data": map[string]string{"detail": detail}}})
	if err != nil { // the id was checked; this is a bug, still answered
		b = []byte(fmt.Sprintf(`{"jsonrpc":"2.0","id":null,"error":{"code":%d,"message":%q}}`, code, message))
	}
	_, _ = out.Write(append(b, '\n'))
}
