// Package print is print mode: one task, no UI. It renders the core's events as text in
// the terminal format of the tool reference (tool lines, preview lines, counters), as
// one JSON result object, or as a stream of JSON events, one per line.
package printmode

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/face"
	"github.com/gantry-dev/gantry/internal/llm"
)

// Format is an output format.
type Format string

// The output formats.
const (
	FormatText       Format = "text"
	FormatJSON       Format = "json"
	FormatStreamJSON Format = "stream-json"
)

// ParseFormat checks a format name.
func ParseFormat(s string) (Format, error) {
	switch Format(s) {
	case FormatText, FormatJSON, FormatStreamJSON:
		return Format(s), nil
	}
	return "", fmt.Errorf("unknown output format %q (want text, json or stream-json)", s)
}

// Options configure the printer.
type Options struct {
	// FlushAfter bounds how long written output may wait in the printer's buffer, so
	// that the events of one step go out in one write instead of one each. Zero
	// writes every event at once.
	FlushAfter   time.Duration
	Format       Format
	PreviewLines int
	// Color enables dim preview lines (a terminal without NO_COLOR).
	Color bool
	// Diag, when set, receives text mode's retry lines (stderr), so that an answer
	// retried in the middle stays one text on out.
	Diag io.Writer
}

// Printer renders events. Handle is its face.Sink; it is safe for concurrent use.
type Printer struct {
	mu    sync.Mutex
	out   *bufio.Writer
	opts  Options
	timer *time.Timer // pending flush, nil when the buffer is empty or flushed

	start     time.Time
	sessionID string
	model     string
	denials   []Denial
	usage     face.TurnUsage
	atLineEnd bool // text mode: the last thing written ended a line
	// text mode: the text of the model's current answer so far, and, after a
	// retry, what the failed attempt had printed, which the new attempt's text is
	// matched against so that it is not printed twice
	answer, printed string
	lastTool        string
	inputs          map[string]json.RawMessage // call id → input, until the call finishes
	lines           map[string]string          // call id → its tool line, until it finishes
	enc             *json.Encoder
	structured      json.RawMessage // the answer --output-schema validated (SetStructured)
}

// Denial is a refused tool call, reported in the JSON result.
type Denial struct {
	Tool   string          `json:"tool_name"`
	CallID string          `json:"tool_use_id"`
	Input  json.RawMessage `json:"tool_input,omitempty"`
	Reason string          `json:"reason"`
}

// New returns a printer writing to out.
func New(out io.Writer, opts Options) *Printer {
	bw := bufio.NewWriterSize(out, 32<<10)
	return &Printer{out: bw, opts: opts, start: time.Now(), atLineEnd: true, enc: json.NewEncoder(bw), inputs: map[string]json.RawMessage{}, lines: map[string]string{}}
}

func (p *Printer) line(v any) { _ = p.enc.Encode(v) }

// Handle implements face.Sink.
func (p *Printer) Handle(e face.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch e := e.(type) {
	case face.SessionStarted:
		p.sessionID, p.model = e.SessionID, e.Model
	case face.ModelChanged:
		p.model = e.Model
	case face.ToolStarted:
		if json.Valid(e.Input) {
			p.inputs[e.CallID] = e.Input
		}
	case face.ToolFinished:
		if e.Refused {
			p.denials = append(p.denials, Denial{Tool: e.Name, CallID: e.CallID, Input: p.inputs[e.CallID], Reason: e.Result.Text})
		}
		delete(p.inputs, e.CallID)
	}
	if u, ok := e.(face.TurnUsage); ok {
		p.usage = u
	}
	switch p.opts.Format {
	case FormatText:
		p.text(e)
	case FormatStreamJSON:
		p.streamJSON(e)
	}
	if _, ok := e.(face.ToolRunning); ok {
		// A call is about to run: what was said of it is out before it acts, so a
		// reader (or whoever kills gantry) knows what may have run.
		_ = p.out.Flush()
		return
	}
	p.scheduleFlush()
}

// scheduleFlush writes the buffer out now (FlushAfter zero) or within FlushAfter.
// Called with mu held.
func (p *Printer) scheduleFlush() {
	if p.out.Buffered() == 0 {
		return
	}
	if p.opts.FlushAfter <= 0 {
		_ = p.out.Flush()
		return
	}
	if p.timer == nil {
		p.timer = time.AfterFunc(p.opts.FlushAfter, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.timer = nil
			_ = p.out.Flush()
		})
	}
}

// Flush writes out what the printer holds.
func (p *Printer) Flush() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.flushLocked()
}

func (p *Printer) flushLocked() {
	if p.timer != nil {
		p.timer.Stop()
		p.timer = nil
	}
	_ = p.out.Flush()
}

// Result is the JSON result object of a run.
type Result struct {
	Type       string        `json:"type"`
	Subtype    string        `json:"subtype"`
	Version    string        `json:"schema_version"` // SchemaVersion (schema.go)
	IsError    bool          `json:"is_error"`
	Result     string        `json:"result"`
	Error      string        `json:"error,omitempty"`
	StopReason string        `json:"stop_reason"`
	SessionID  string        `json:"session_id"`
	Model      string        `json:"model"`
	Turns      int           `json:"num_turns"`
	DurationMS int64         `json:"duration_ms"`
	Usage      llm.Usage     `json:"usage"`
	CostUSD    float64       `json:"total_cost_usd"`
	Counters   face.Counters `json:"counters"`
	Denials    []Denial      `json:"permission_denials"`
	// StructuredOutput is the final answer parsed, when --output-schema validated it.
	StructuredOutput json.RawMessage `json:"structured_output,omitempty"`
}

// SetStructured gives the result the answer --output-schema validated (nil: none).
func (p *Printer) SetStructured(v json.RawMessage) {
	p.mu.Lock()
	p.structured = v
	p.mu.Unlock()
}

// Finish writes the end of the run: the JSON result object (json and stream-json) or a
// closing newline (text). It returns the result for the caller's exit status.
func (p *Printer) Finish(end face.TurnEnded) Result { return p.FinishAs(end, Outcome{}) }

// FinishAs is Finish with an outcome the face knows and the turn's end does not (a
// question nobody could answer); an empty Outcome changes nothing.
func (p *Printer) FinishAs(end face.TurnEnded, o Outcome) Result {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := Result{
		Type: "result", Subtype: SubtypeSuccess, Version: SchemaVersion, Result: end.Text, StopReason: end.StopReason,
		SessionID: p.sessionID, Model: p.model, Turns: end.Steps,
		DurationMS: time.Since(p.start).Milliseconds(), Usage: p.usage.SessionUsage,
		CostUSD: p.usage.SessionCost, Counters: end.Counters, Denials: p.denials,
		StructuredOutput: p.structured,
	}
	if r.Denials == nil {
		r.Denials = []Denial{}
	}
	switch {
	case end.StoreErr != nil && end.StopReason != "cancelled":
		r.IsError, r.Subtype = true, SubtypeStore
		r.Error = end.StoreErr.Error()
		if end.Err != nil {
			r.Error = end.Err.Error()
		}
	case end.StopReason != "end_turn":
		r.IsError = true
		r.Subtype = Subtype(end.StopReason)
		if end.Err != nil {
			r.Error = end.Err.Error()
		}
	}
	o.apply(&r)
	switch p.opts.Format {
	case FormatText:
		if !p.atLineEnd {
			fmt.Fprintln(p.out)
			p.atLineEnd = true
		}
	default:
		p.line(r)
	}
	p.flushLocked()
	return r
}
