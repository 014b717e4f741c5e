package config

import (
	"fmt"
	"reflect"
	"strings"

	"github.com/gantry-dev/gantry/internal/editdist"
)

// suggest returns `; did you mean "x"?` when the last part of the unknown key is close
// to a key that exists at its place, else "".
func suggest(key string) string {
	path := splitPath(key)
	if len(path) == 0 {
		return ""
	}
	name := path[len(path)-1]
	t := typeAt(fileLayerType(), path[:len(path)-1])
	for t != nil && t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == nil || t.Kind() != reflect.Struct {
		return ""
	}
	var names []string
	for i := range t.NumField() {
		if tag, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ","); tag != "" && tag != "-" {
			names = append(names, tag)
		}
	}
	if best := closest(name, names); best != "" {
		return fmt.Sprintf("; did you mean %q?", best)
	}
	return ""
}

// closest returns the candidate nearest to s, if it is near enough to be a typo:
// equal but for case, or at most a third of its letters away.
func closest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	for _, c := range candidates {
		d := editdist.Distance(strings.ToLower(s), strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if best == "" || bestD > max(1, len(best)/3) {
		return ""
	}
	return best
}
