package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
)

// readBodies prints what a folder of recorded request bodies (NNN.json, in order)
// holds: the first one declaring tools by part, and the prefix breaks between the
// consecutive ones declaring tools (others, such as a peer's title requests, are
// left out).
func readBodies(w io.Writer, dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return err
	}
	sort.Strings(names)
	run := &sessionRun{}
	for _, name := range names {
		body, err := os.ReadFile(name)
		if err != nil {
			return err
		}
		r, err := parseRequest("", body)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		if len(r.Tools) == 0 {
			continue
		}
		run.API = r.API
		run.Reqs = append(run.Reqs, r)
		run.Labels = append(run.Labels, filepath.Base(name))
	}
	if len(run.Reqs) == 0 {
		return fmt.Errorf("no request declaring tools in %s", dir)
	}
	fmt.Fprintf(w, "## Request bodies in %s\n\n", dir)
	writeFirst(w, []firstRequest{{API: run.API, Req: run.Reqs[0]}})
	if len(run.Reqs) > 1 {
		return writeSessions(w, []*sessionRun{run}, "The requests of the folder that declare tools, in the order of their names.")
	}
	return nil
}
