package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"text/tabwriter"

	"github.com/gantry-dev/gantry/internal/session"
)

// runSessions lists the stored sessions.
func runSessions(args []string) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	limit := fs.Int("limit", 30, "")
	asJSON := fs.Bool("json", false, "")
	if err := fs.Parse(args); err != nil {
		fmt.Fprintln(os.Stderr, "gantry sessions: usage: gantry sessions [--limit N] [--json]")
		return 2
	}
	st, err := session.Open(session.DefaultPath())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", err)
		return 1
	}
	defer st.Close()
	list, err := st.List(*limit)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", err)
		return 1
	}
	if *asJSON {
		enc := json.NewEncoder(os.Stdout)
		enc.SetIndent("", "  ")
		if list == nil {
			list = []session.Info{}
		}
		_ = enc.Encode(list)
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
	_ = w.Flush()
	return 0
}
