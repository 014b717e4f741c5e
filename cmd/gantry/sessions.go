package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/session"
)

// sessionJSON is a stored session as `gantry sessions --json` prints it: snake_case,
// like every other JSON output of gantry.
type sessionJSON struct {
	ID       string    `json:"id"`
	Cwd      string    `json:"cwd"`
	Title    string    `json:"title"`
	Provider string    `json:"provider"`
	Model    string    `json:"model"`
	Created  time.Time `json:"created"`
	Updated  time.Time `json:"updated"`
	Messages int       `json:"messages"`
	Turns    int       `json:"turns"`
	Usage    llm.Usage `json:"usage"`
	CostUSD  float64   `json:"cost_usd"`
}

const sessionsUsage = "usage: gantry sessions [--limit N] [--json]"

// runSessions lists the stored sessions.
func runSessions(args []string) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	limit := fs.Int("limit", 30, "")
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Println(sessionsUsage)
			return 0
		}
		fmt.Fprintf(os.Stderr, "gantry sessions: %s; %s\n", flagError(err), sessionsUsage)
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "gantry sessions: unexpected argument %q; %s\n", fs.Arg(0), sessionsUsage)
		return 2
	}
	if *limit < 0 {
		fmt.Fprintf(os.Stderr, "gantry sessions: --limit must be 0 (all) or more, not %d\n", *limit)
		return 2
	}
	st, err := session.Open(session.DefaultPath())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	defer st.Close()
	list, err := st.List(*limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	if *asJSON {
		out := make([]sessionJSON, 0, len(list))
		for _, s := range list {
			out = append(out, sessionJSON{ID: s.ID, Cwd: s.Cwd, Title: s.Title, Provider: s.Provider, Model: s.Model,
				Created: s.Created, Updated: s.Updated, Messages: s.Messages, Turns: s.Turns, Usage: s.Usage, CostUSD: s.Cost})
		}
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(out); err != nil {
			fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
			return 1
		}
		return 0
	}
	if len(list) == 0 {
		fmt.Println("No sessions yet.")
		return 0
	}
	w := tabwriter.NewWriter(os.Stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ID\tUPDATED\tTURNS\tCOST\tMODEL\tFOLDER\tTITLE")
	for _, s := range list {
		fmt.Fprintf(w, "%s\t%s\t%d\t$%.4f\t%s\t%s\t%s\n", s.ID, s.Updated.Local().Format("2006-01-02 15:04"), s.Turns, s.Cost, s.Model, s.Cwd, s.Title)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	return 0
}
