package termtext

import "strings"

// previewWidth is how many characters of a line a preview keeps.
const previewWidth = 160

// cutLong cuts a preview line longer than previewWidth. Its last sentence is kept
// whole when it is short, with the line's start before it: the end of a refusal is
// what to do about it ("… The user can allow it with --allow 'bash:go test( .*)?'."),
// the part a cut at the end would lose.
func cutLong(l string) string {
	r := []rune(l)
	if len(r) <= previewWidth {
		return l
	}
	i := strings.LastIndex(strings.TrimRight(l, " "), ". ")
	if i < 0 {
		return string(r[:previewWidth]) + "…"
	}
	tail := []rune(strings.TrimSpace(l[i+2:]))
	if len(tail) == 0 || len(tail) > 2*previewWidth {
		return string(r[:previewWidth]) + "…"
	}
	head := max(previewWidth-len(tail), previewWidth/3)
	return string(r[:head]) + "… " + string(tail)
}
