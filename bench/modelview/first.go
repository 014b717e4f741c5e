package main

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
)

// firstRequest is the first request of a one-prompt print run, for one API, with or
// without the MCP servers.
type firstRequest struct {
	API string
	MCP bool
	Req *request
}

// firstRequests runs `gantry -p hello` once per API, bare and with the three MCP
// servers, and keeps the first request of each.
func (b *bench) firstRequests(apis []string) ([]firstRequest, error) {
	var out []firstRequest
	for _, withMCP := range []bool{false, true} {
		if withMCP && b.mcp == "" {
			continue
		}
		for _, api := range apis {
			label := "first-" + api
			if withMCP {
				label += "-mcp"
				remove, err := b.mcpConfig()
				if err != nil {
					return nil, err
				}
				defer remove()
			}
			reqs, err := b.printRun(label, api, []fakellm.Turn{{Parts: []fakellm.Part{fakellm.Text("Hello.")}}}, "-p", "hello")
			if err != nil {
				return nil, err
			}
			if len(reqs) == 0 {
				return nil, fmt.Errorf("%s: gantry sent no request", label)
			}
			out = append(out, firstRequest{API: api, MCP: withMCP, Req: reqs[0]})
		}
	}
	return out, nil
}

// writeFirst prints the table of parts and the table of tools.
func writeFirst(w io.Writer, firsts []firstRequest) {
	fmt.Fprintln(w, "### The first request, by part")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "Bytes as sent; tokens estimated at four bytes a token, as gantry's `/context` does. The fixed part is what every request repeats: system and the tools in the prompt (deferred tools are not in it until found; server tools such as tool search are counted with the tools). On Chat Completions, which has no deferred loading, tools left for a client-side search are not in the body at all, so they are in no column.")
	fmt.Fprintln(w)
	fmt.Fprintln(w, "| API | MCP servers | system | tools in the prompt | deferred tools | messages | other fields | whole body | **fixed part** |")
	fmt.Fprintln(w, "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
	for _, f := range firsts {
		r := f.Req
		sys := bytesOf(r.System)
		n, tools := r.declared()
		dn, dsize := r.deferred()
		mcp := "none"
		if f.MCP {
			mcp = fmt.Sprintf("3 (%d of their tools in the body)", mcpTools(r))
		}
		fmt.Fprintf(w, "| %s | %s | %s | %d: %s | %d: %s | %s | %s | %s | **%s** |\n", apiName(f.API), mcp, bt(sys), n, bt(tools), dn, bt(dsize),
			bt(bytesOf(r.Messages)), bt(r.Other), bt(r.Size), tok(sys+tools))
	}
	fmt.Fprintln(w)
	// One row per tool, a column per API (bare runs, then the MCP runs' extra tools).
	cols := []firstRequest{}
	for _, f := range firsts {
		if !f.MCP {
			cols = append(cols, f)
		}
	}
	names := map[string]bool{}
	byAPI := map[string]map[string]toolDecl{}
	for _, f := range firsts {
		m := byAPI[f.API]
		if m == nil {
			m = map[string]toolDecl{}
			byAPI[f.API] = m
		}
		for _, t := range f.Req.Tools {
			names[t.Name] = true
			m[t.Name] = t
		}
	}
	var sorted []string
	for n := range names {
		sorted = append(sorted, n)
	}
	sort.Slice(sorted, func(i, j int) bool {
		mi, mj := strings.HasPrefix(sorted[i], "mcp__"), strings.HasPrefix(sorted[j], "mcp__")
		if mi != mj {
			return mj
		}
		return sorted[i] < sorted[j]
	})
	fmt.Fprintln(w, "### Each tool's declaration (name, description and schema as sent), in tokens")
	fmt.Fprintln(w)
	head, rule := "| tool |", "| --- |"
	for _, c := range cols {
		head += " " + apiName(c.API) + " |"
		rule += " ---: |"
	}
	fmt.Fprintln(w, head)
	fmt.Fprintln(w, rule)
	for _, n := range sorted {
		row := "| " + n + " |"
		for _, c := range cols {
			t, ok := byAPI[c.API][n]
			switch {
			case !ok:
				row += " — |"
			case t.Deferred:
				row += fmt.Sprintf(" %d (deferred) |", tokens(len(t.Raw)))
			case t.Server:
				row += fmt.Sprintf(" %d (server tool) |", tokens(len(t.Raw)))
			default:
				row += fmt.Sprintf(" %d |", tokens(len(t.Raw)))
			}
		}
		fmt.Fprintln(w, row)
	}
	fmt.Fprintln(w)
}

// mcpTools counts the tools of MCP servers (declared or deferred).
func mcpTools(r *request) int {
	n := 0
	for _, t := range r.Tools {
		if strings.HasPrefix(t.Name, "mcp__") {
			n++
		}
	}
	return n
}

func apiName(api string) string {
	switch api {
	case apiAnthropic:
		return "Anthropic Messages"
	case apiResponses:
		return "OpenAI Responses"
	case apiChat:
		return "OpenAI Chat"
	}
	return api
}

// bt prints bytes and their estimated tokens.
func bt(n int) string { return fmt.Sprintf("%s B (%s tok)", comma(n), comma(tokens(n))) }

func tok(n int) string { return comma(tokens(n)) + " tok" }

// comma writes n with thousands separators.
func comma(n int) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + comma(-n)
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
