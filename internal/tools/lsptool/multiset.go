package lsptool

import (
	"slices"
	"strings"

	"go.lsp.dev/protocol"
)

// diagKey is what makes two diagnostics of a file the same: severity, code and
// message, never position, so that an error that merely moved (lines inserted above
// it, a rename) is the same error.
func diagKey(d protocol.Diagnostic) string {
	return strings.Join([]string{severity(d.Severity), code(d), strings.TrimSpace(message(d))}, "\x00")
}

// newDiagnostics is after less before as multisets of diagnostics keyed by diagKey:
// per key, as many of after's as it has more than before (two new errors with one
// message are two). Of a key's diagnostics, those on a line where before had none of
// that key are taken first, then the later ones; the result is in after's order.
func newDiagnostics(before, after []protocol.Diagnostic) []protocol.Diagnostic {
	had := map[string]int{}                 // count per key before
	hadLine := map[string]map[uint32]bool{} // lines per key before
	for _, d := range before {
		k := diagKey(d)
		had[k]++
		if hadLine[k] == nil {
			hadLine[k] = map[uint32]bool{}
		}
		hadLine[k][d.Range.Start.Line] = true
	}
	byKey := map[string][]int{} // indexes into after, per key
	var keys []string
	for i, d := range after {
		k := diagKey(d)
		if byKey[k] == nil {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], i)
	}
	var picked []int
	for _, k := range keys {
		idx := byKey[k]
		extra := len(idx) - had[k]
		if extra <= 0 {
			continue
		}
		// Stable: those on a new line first, then the rest, each in after's order;
		// of the rest, the later ones.
		var onNew, onOld []int
		for _, i := range idx {
			if hadLine[k][after[i].Range.Start.Line] {
				onOld = append(onOld, i)
			} else {
				onNew = append(onNew, i)
			}
		}
		if len(onNew) >= extra {
			picked = append(picked, onNew[:extra]...)
		} else {
			picked = append(picked, onNew...)
			picked = append(picked, onOld[len(onOld)-(extra-len(onNew)):]...)
		}
	}
	slices.Sort(picked)
	out := make([]protocol.Diagnostic, len(picked))
	for i, j := range picked {
		out[i] = after[j]
	}
	return out
}
