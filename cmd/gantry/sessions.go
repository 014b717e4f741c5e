package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"text/tabwriter"
	"time"

	"github.com/gantry-dev/gantry/internal/llm"
	"github.com/gantry-dev/gantry/internal/session"
	"github.com/gantry-dev/gantry/internal/tool"
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
	// Parent is the session a vibe worker's was started from.
	Parent string `json:"parent,omitempty"`
	// BranchOf is the session a rewind's branch was cut from: the branch keeps the
	// conversation as it was before the rewind.
	BranchOf string `json:"branch_of,omitempty"`
	// Running is the gantry that runs the session now, when one does.
	Running *runningJSON `json:"running,omitempty"`
}

type runningJSON struct {
	PID   int       `json:"pid"`
	Host  string    `json:"host,omitempty"`
	Since time.Time `json:"since"`
}

const sessionsUsage = "usage: gantry sessions [--limit N] [--json] [--session-dir DIR]"

// runSessions lists the stored sessions.
func runSessions(args []string) int {
	fs := flag.NewFlagSet("sessions", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	limit := fs.Int("limit", 30, "")
	asJSON := fs.Bool("json", false, "")
	dir := fs.String("session-dir", "", "")
	if code, ok := parseCommand(fs, args, "sessions", sessionsUsage); !ok {
		return code
	}
	if *limit < 0 {
		fmt.Fprintf(os.Stderr, "gantry sessions: --limit must be 0 (all) or more, not %d\n", *limit)
		return 2
	}
	// Listing only reads: it works on a store that cannot be written.
	var (
		list    []session.Info
		running map[string]session.Holder
	)
	path := session.DefaultPath()
	if *dir != "" { // the store of runs given --session-dir (bounds.go)
		path = filepath.Join(tool.ExpandHome(*dir), "sessions.db")
	}
	st, err := session.OpenRead(path)
	switch {
	case errors.Is(err, session.ErrNoStore):
	case err != nil:
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	default:
		defer st.Close()
		if list, err = st.List(*limit); err == nil {
			running, err = st.Running()
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
			return 1
		}
	}
	if *asJSON {
		out := make([]sessionJSON, 0, len(list))
		for _, s := range list {
			j := sessionJSON{ID: s.ID, Cwd: s.Cwd, Title: s.Title, Provider: s.Provider, Model: s.Model,
				Created: s.Created, Updated: s.Updated, Messages: s.Messages, Turns: s.Turns, Usage: s.Usage, CostUSD: s.Cost, Parent: s.Parent, BranchOf: s.BranchOf}
			if h, ok := running[s.ID]; ok {
				j.Running = &runningJSON{PID: h.PID, Host: h.Host, Since: h.Since}
			}
			out = append(out, j)
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
	fmt.Fprintln(w, "ID\tUPDATED\tTURNS\tCOST\tMODEL\tSTATE\tFOLDER\tTITLE")
	for _, s := range list {
		state := "-"
		if h, ok := running[s.ID]; ok {
			state = fmt.Sprintf("running (pid %d)", h.PID)
			if h.Host != "" {
				state = fmt.Sprintf("running (pid %d on %s)", h.PID, h.Host)
			}
		}
		title := s.Title
		if s.Parent != "" {
			title = fmt.Sprintf("%s (worker of %s)", title, s.Parent)
		}
		fmt.Fprintf(w, "%s\t%s\t%d\t$%.4f\t%s\t%s\t%s\t%s\n", s.ID, s.Updated.Local().Format("2006-01-02 15:04"), s.Turns, s.Cost, s.Model, state, s.Cwd, title)
	}
	if err := w.Flush(); err != nil {
		fmt.Fprintln(os.Stderr, "gantry:", sentence(err))
		return 1
	}
	return 0
}
