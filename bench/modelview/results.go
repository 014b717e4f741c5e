package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// maxOutput is the bound gantry documents for every tool result, in characters.
const maxOutput = 30000

// resultCall is one call of the fixed set whose result is measured; whole is a shell
// command printing everything the call could return, to give its size beside what the
// model read ("" for the fetched page, whose size the bench knows).
type resultCall struct {
	what, tool, args, whole string
}

// resultCalls is the fixed set; {PAGE} is the URL of the bench's page.
var resultCalls = []resultCall{
	{"bash `seq 1 200000`", "bash", `{"command":"seq 1 200000"}`, "seq 1 200000"},
	{"bash `grep -rn needle tree` (1,000 files)", "bash", `{"command":"grep -rn needle tree"}`, "grep -rn needle tree"},
	{"grep tool, content mode, same tree", "grep", `{"pattern":"needle","path":"tree","output_mode":"content"}`, "grep -rn needle tree"},
	{"grep tool, files with matches, same tree", "grep", `{"pattern":"needle","path":"tree"}`, "grep -rl needle tree"},
	{"read_file of a 20,000-line file", "read_file", `{"path":"big.txt"}`, "cat big.txt"},
	{"glob `tree/**/*.go` (1,000 files)", "glob", `{"pattern":"tree/**/*.go"}`, "find tree -name '*.go'"},
	{"web_fetch of an HTML page on 127.0.0.1", "web_fetch", `{"url":"{PAGE}"}`, ""},
}

// resultRow is what the model read of one call.
type resultRow struct {
	call       resultCall
	whole      int // bytes of everything the call could return
	chars, siz int
	note       string // the result's notes on what was cut, else its last line
	problem    string // an argument this binary does not declare, or no result
}

// notePattern finds the line of a result that says it was cut.
var notePattern = regexp.MustCompile(`(?i)\b(cut|truncat|omitted|stopped|showing)`)

// results runs the fixed set of calls in one print session (Anthropic; results do not
// depend on the API) and reads each result from the request that carried it.
func (b *bench) results() ([]resultRow, error) {
	page, pageSize, stop, err := servePage()
	if err != nil {
		return nil, err
	}
	defer stop()
	var turns []fakellm.Turn
	for i, c := range resultCalls {
		args := strings.ReplaceAll(c.args, "{PAGE}", page)
		turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall(fmt.Sprintf("r%d", i+1), c.tool, args)}})
	}
	turns = append(turns, fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Done.")}})
	reqs, err := b.printRun("results", apiAnthropic, turns, "-p", "run the calls", "--permission-mode", "yolo", "--max-turns", "20")
	if err != nil {
		return nil, err
	}
	if len(reqs) != len(turns) {
		return nil, fmt.Errorf("results: gantry sent %d requests, the script has %d", len(reqs), len(turns))
	}
	got, err := toolResults(reqs[len(reqs)-1])
	if err != nil {
		return nil, err
	}
	var rows []resultRow
	for i, c := range resultCalls {
		row := resultRow{call: c, problem: undeclared(reqs[0], c.tool, c.args)}
		text, ok := got[fmt.Sprintf("r%d", i+1)]
		if !ok {
			row.problem = strings.TrimPrefix(row.problem+"; no result in the next request", "; ")
		}
		row.chars, row.siz = utf8.RuneCountInString(text), len(text)
		lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
		var notes []string
		for _, l := range lines {
			if notePattern.MatchString(l) {
				notes = append(notes, l)
			}
		}
		row.note = strings.Join(notes, " / ")
		if row.note == "" {
			row.note = lines[len(lines)-1]
		}
		if c.whole == "" {
			row.whole = pageSize
		} else {
			cmd := exec.Command("bash", "-c", c.whole)
			cmd.Dir = b.proj
			out, err := cmd.Output()
			if err != nil {
				return nil, fmt.Errorf("measuring %q: %w", c.whole, err)
			}
			row.whole = len(out)
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// undeclared names the arguments of a call that the tool's schema in req lacks, or
// says the tool is not declared.
func undeclared(req *request, name, args string) string {
	for _, t := range req.Tools {
		if t.Name != name {
			continue
		}
		var decl struct {
			InputSchema *schema `json:"input_schema"`
			Parameters  *schema `json:"parameters"`
			Function    *struct {
				Parameters *schema `json:"parameters"`
			} `json:"function"`
		}
		if json.Unmarshal(t.Raw, &decl) != nil {
			return "its declaration is not JSON"
		}
		s := decl.InputSchema
		if s == nil {
			s = decl.Parameters
		}
		if s == nil && decl.Function != nil {
			s = decl.Function.Parameters
		}
		if s == nil {
			return "no schema"
		}
		var a map[string]any
		if json.Unmarshal([]byte(args), &a) != nil {
			return "bad arguments"
		}
		var missing []string
		for k := range a {
			if _, ok := s.Properties[k]; !ok {
				missing = append(missing, k)
			}
		}
		sort.Strings(missing)
		if len(missing) > 0 {
			return "argument " + strings.Join(missing, ", ") + " not in the schema"
		}
		return ""
	}
	return name + " not declared in the first request"
}

type schema struct {
	Properties map[string]json.RawMessage `json:"properties"`
}

// servePage serves a large HTML page on 127.0.0.1 and returns its URL, its size and a
// stop function.
func servePage() (string, int, func(), error) {
	var b strings.Builder
	b.WriteString("<!doctype html><html><head><title>A long page</title></head><body><h1>A long page</h1>\n")
	for i := 1; b.Len() < 300_000; i++ {
		fmt.Fprintf(&b, "<h2>Section %d</h2>\n<p>This is paragraph %d of a long reference page, with <a href=\"/s/%d\">a link</a> and <code>some_code(%d)</code> in it, written to be long enough that fetching it gives the model more text than a result should hold.</p>\n<ul><li>first point of %d</li><li>second point of %d</li></ul>\n", i, i, i, i, i, i)
	}
	b.WriteString("</body></html>\n")
	page := b.String()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", 0, nil, fmt.Errorf("listening on loopback: %w", err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, page)
	})}
	go func() { _ = srv.Serve(ln) }()
	return "http://" + ln.Addr().String() + "/page.html", len(page), func() { _ = srv.Close() }, nil
}

// writeResults prints the table of results.
func writeResults(w io.Writer, rows []resultRow) {
	fmt.Fprintln(w, "### Tool results the model reads")
	fmt.Fprintln(w)
	fmt.Fprintf(w, "Each call scripted through the fake model (Anthropic); its result read from the next request. Over %s characters (gantry's documented `maxOutput`) is flagged.\n\n", comma(maxOutput))
	fmt.Fprintln(w, "| call | whole output | characters read | tokens read | over the bound | the result's notes on what was cut (else its last line) |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- | --- |")
	for _, r := range rows {
		over := ""
		if r.chars > maxOutput {
			over = "**over**"
		}
		note := r.note
		if r.problem != "" {
			note = "⚠ " + r.problem + " — " + note
		}
		fmt.Fprintf(w, "| %s | %s B | %s | %s | %s | %s |\n", r.call.what, comma(r.whole), comma(r.chars), comma(tokens(r.siz)), over, cell(note, 300))
	}
	fmt.Fprintln(w)
}

// cell makes s fit a Markdown table cell of at most n characters.
func cell(s string, n int) string {
	s = strings.ReplaceAll(strings.ReplaceAll(s, "|", "\\|"), "`", "'")
	if utf8.RuneCountInString(s) > n {
		s = string([]rune(s)[:n]) + "…"
	}
	return s
}
