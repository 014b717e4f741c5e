package main

import (
	"fmt"
	"io"
	"strings"
)

// summary is the headline figures of a run, set beside the targets of issue 30.
type summary struct {
	firsts   []firstRequest
	sessions []*sessionRun
	results  []resultRow
}

func (s *summary) write(w io.Writer) error {
	if len(s.firsts) == 0 && len(s.sessions) == 0 && len(s.results) == 0 {
		return nil // only the peers were measured
	}
	fmt.Fprintln(w, "| measure | Anthropic Messages | OpenAI Responses | OpenAI Chat | target |")
	fmt.Fprintln(w, "| --- | ---: | ---: | ---: | --- |")
	for _, withMCP := range []bool{false, true} {
		var fixed, tools []string
		for _, f := range s.firsts {
			if f.MCP != withMCP {
				continue
			}
			n, size := f.Req.declared()
			dn, _ := f.Req.deferred()
			fixed = append(fixed, tok(bytesOf(f.Req.System)+size))
			tools = append(tools, fmt.Sprintf("%d + %d deferred", n, dn))
		}
		if len(fixed) != 3 {
			continue
		}
		what, target := "fixed part of the first request (system + tools in the prompt)", "≤ 4,000 tok"
		if withMCP {
			what, target = "the same with 3 MCP servers", "≤ 5,000 tok"
		}
		fmt.Fprintf(w, "| %s | %s | %s |\n", what, strings.Join(fixed, " | "), target)
		label := "tools in the prompt + deferred"
		if withMCP {
			label += ", with 3 MCP servers"
		}
		fmt.Fprintf(w, "| %s | %s | |\n", label, strings.Join(tools, " | "))
	}
	if len(s.sessions) == 3 {
		// The session's first request is gantry acp's, where a person can answer
		// (ask_user and the plan tools declared); its seventh the first in plan mode.
		for _, at := range []struct {
			what string
			i    int
		}{{"fixed part through gantry acp (a person there), first request", 0}, {"fixed part through gantry acp in plan mode", 6}} {
			var fixed []string
			for _, r := range s.sessions {
				_, size := r.Reqs[at.i].declared()
				fixed = append(fixed, tok(bytesOf(r.Reqs[at.i].System)+size))
			}
			fmt.Fprintf(w, "| %s | %s | |\n", at.what, strings.Join(fixed, " | "))
		}
		var breaks, lost []string
		for _, r := range s.sessions {
			n, l, err := r.breaks()
			if err != nil {
				return err
			}
			breaks = append(breaks, fmt.Sprint(n))
			lost = append(lost, tok(l))
		}
		fmt.Fprintf(w, "| prefix breaks over %d requests (plan mode in and out, resumed the next day) | %s | ≤ 1 per plan-mode change, none at the resume |\n", len(s.sessions[0].Reqs), strings.Join(breaks, " | "))
		fmt.Fprintf(w, "| tokens re-cached by those breaks | %s | |\n", strings.Join(lost, " | "))
	}
	if len(s.results) > 0 {
		over, most := 0, 0
		for _, r := range s.results {
			if r.chars > maxOutput {
				over++
			}
			most = max(most, r.chars)
		}
		fmt.Fprintf(w, "| tool results over %s characters, of %d calls (Anthropic) | %d (largest %s) | | | none |\n", comma(maxOutput), len(s.results), over, comma(most))
	}
	fmt.Fprintln(w)
	return nil
}
