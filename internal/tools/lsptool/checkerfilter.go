package lsptool

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/gantry-dev/gantry/internal/tool"
)

// hideDenied takes out of a project checker's output the messages about files a rule
// denies reading — a line "path:line: …" naming one, and the indented lines that go on
// with it — since a checker quotes the code it complains of (go vet prints the
// arguments of a bad Printf). Paths are read relative to root, where the checker ran.
// The files left out are named at the end, one line each.
func hideDenied(env tool.Env, root, text string) string {
	if env.Files == nil || text == "" {
		return text
	}
	denied := map[string]error{}
	var out []string
	hiding := false
	for _, line := range strings.Split(text, "\n") {
		if hiding && (strings.HasPrefix(line, " ") || strings.HasPrefix(line, "\t")) {
			continue // the rest of a hidden message
		}
		hiding = false
		if p, ok := messagePath(root, line); ok {
			if err := env.CanRead(p); err != nil {
				denied[rel(env.Cwd, p)] = err
				hiding = true
				continue
			}
		}
		out = append(out, line)
	}
	return strings.Join(append(out, skippedLines(denied)...), "\n")
}

// messagePath is the file a checker's line "path:line…" is about, when it names an
// existing file.
func messagePath(root, line string) (string, bool) {
	p, rest, ok := strings.Cut(line, ":")
	if !ok || p == "" || rest == "" || rest[0] < '0' || rest[0] > '9' || strings.ContainsAny(p, " \t") {
		return "", false
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(root, p)
	}
	if st, err := os.Stat(p); err != nil || st.IsDir() {
		return "", false
	}
	return p, true
}
