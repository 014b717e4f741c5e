package agents

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/frontmatter"
)

// Def is one subagent definition.
type Def struct {
	Name        string
	Description string
	// Tools are the names its front matter lists, as written (Claude Code's Read or
	// gantry's read_file); nil: every tool the caller has.
	Tools []string
	// Disallowed are the tools it may not use (disallowedTools).
	Disallowed []string
	// Model is sonnet, opus, haiku, inherit or a full model name; "" is inherit.
	Model string
	// Prompt is the body: added to the subagent's system prompt.
	Prompt string
	// MaxTurns stops the subagent after that many model turns; 0 is no limit of its
	// own (the session's).
	MaxTurns int
	// PermissionMode is the mode it runs in, one of PermissionModes, as written; the
	// caller's mode caps it (a subagent never gets more than its caller). "" is the
	// caller's.
	PermissionMode string
	// Path is its file; Source names its folder ("project .claude/agents").
	Path, Source string
}

// Dir is a folder of definitions and the name it is shown with. Plugin, when set, is
// the plugin the folder belongs to: its agents are named plugin:name, as Claude Code
// shows them.
type Dir struct {
	Path, Source string
	Plugin       string
}

// Dirs are the folders read, in order of precedence: gantry's project folder, Claude
// Code's project folder (both only when project is true: a trusted folder), gantry's
// user folder, Claude Code's user folder (claudeDir; "" when there is none).
func Dirs(root, userDir, claudeDir string, project bool) []Dir {
	var out []Dir
	if project && root != "" {
		out = append(out, Dir{Path: filepath.Join(root, ".gantry", "agents"), Source: "project .gantry/agents"},
			Dir{Path: filepath.Join(root, ".claude", "agents"), Source: "project .claude/agents"})
	}
	if userDir != "" {
		out = append(out, Dir{Path: filepath.Join(userDir, "agents"), Source: "user " + filepath.Join(userDir, "agents")})
	}
	if claudeDir != "" {
		out = append(out, Dir{Path: filepath.Join(claudeDir, "agents"), Source: "user " + filepath.Join(claudeDir, "agents")})
	}
	return out
}

// Load reads the *.md files of dirs (a missing folder has none), sorted by name, the
// first definition of a name winning. Every file it cannot use is one notice saying
// why; so is every front-matter key it ignores.
func Load(dirs []Dir) (defs []Def, notices []string) {
	seen := map[string]string{}
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			notices = append(notices, fmt.Sprintf("The agent definitions in %s could not be read: %v.", d.Path, err))
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(d.Path, e.Name())
			def, note, err := read(path)
			if err != nil {
				notices = append(notices, fmt.Sprintf("The agent definition %s is not used: %v.", path, err))
				continue
			}
			if note != "" {
				notices = append(notices, fmt.Sprintf("The agent definition %s: %s.", path, note))
			}
			if d.Plugin != "" {
				def.Name = d.Plugin + ":" + def.Name
			}
			if first, ok := seen[def.Name]; ok {
				notices = append(notices, fmt.Sprintf("The agent definition %s is not used: %s defines %q first.", path, first, def.Name))
				continue
			}
			seen[def.Name] = path
			def.Path, def.Source = path, d.Source
			defs = append(defs, def)
		}
	}
	sort.SliceStable(defs, func(i, j int) bool { return defs[i].Name < defs[j].Name })
	return defs, notices
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._:-]*$`) })

// known are the front-matter keys gantry reads; ignored are Claude Code's that
// change nothing here (color is a terminal's); any other key is named in a notice.
var (
	known   = []string{"name", "description", "tools", "disallowedTools", "model", "maxTurns", "permissionMode"}
	ignored = []string{"color"}
)

// PermissionModes are the values of permissionMode: Claude Code's, then gantry's own
// names of the same modes.
var PermissionModes = []string{"default", "acceptEdits", "plan", "bypassPermissions", "dontAsk", "accept-edits", "yolo"}

// read parses one definition file; note names keys it ignores.
func read(path string) (def Def, note string, err error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return def, "", fmt.Errorf("reading it: %w", err)
	}
	block, body, ok := frontmatter.Split(string(data))
	if !ok {
		return def, "", errors.New("it has no front matter (a --- block with name and description)")
	}
	fields, err := frontmatter.Decode(block)
	if err != nil {
		// Claude Code reads a description holding ": " unquoted (most of its plugins'
		// agents have one, with examples inside): so does gantry, key by key.
		var ok bool
		if fields, ok = lenient(block); !ok {
			return def, "", fmt.Errorf("its front matter is not valid YAML (%v)", err)
		}
	}
	def.Name = strings.TrimSpace(str(fields["name"]))
	if def.Name == "" {
		def.Name = strings.TrimSuffix(filepath.Base(path), ".md")
	}
	if !validName().MatchString(def.Name) {
		return def, "", fmt.Errorf("its name %q is not a name (letters, digits, hyphens, dots, underscores)", def.Name)
	}
	def.Description = strings.Join(strings.Fields(strings.ReplaceAll(str(fields["description"]), `\n`, " ")), " ")
	if def.Description == "" {
		return def, "", errors.New("it has no description (the front matter's description says when to use the agent)")
	}
	if def.Tools, err = list(fields, "tools"); err != nil {
		return def, "", err
	}
	if def.Disallowed, err = list(fields, "disallowedTools"); err != nil {
		return def, "", err
	}
	if v, ok := fields["model"]; ok && v != nil {
		m, isStr := v.(string)
		if !isStr {
			return def, "", fmt.Errorf("its model is not a string")
		}
		def.Model = strings.TrimSpace(m)
	}
	def.Prompt = strings.TrimSpace(body)
	var notes []string
	if v, ok := fields["maxTurns"]; ok && v != nil {
		if n, ok := wholeNumber(v); ok && n > 0 {
			def.MaxTurns = n
		} else {
			notes = append(notes, fmt.Sprintf("its maxTurns %v is not a whole number above 0, so the session's limit applies", v))
		}
	}
	if v, ok := fields["permissionMode"]; ok && v != nil {
		if m := strings.TrimSpace(str(v)); slices.Contains(PermissionModes, m) {
			def.PermissionMode = m
		} else {
			notes = append(notes, fmt.Sprintf("its permissionMode %v is not one of %s, so it runs in its caller's mode", v, strings.Join(PermissionModes, ", ")))
		}
	}
	var unknown []string
	for k := range fields {
		if !slices.Contains(known, k) && !slices.Contains(ignored, k) {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		notes = append(notes, "gantry ignores its keys "+strings.Join(unknown, ", "))
	}
	return def, strings.Join(notes, "; "), nil
}

// wholeNumber reads a YAML number, or a string of digits (as the lenient reader
// gives values), as an int.
func wholeNumber(v any) (int, bool) {
	switch n := v.(type) {
	case uint64:
		return int(min(n, 1<<31)), true
	case int64:
		return int(max(min(n, 1<<31), -1)), true
	case int:
		return n, true
	case float64:
		if n == float64(int(n)) {
			return int(n), true
		}
	case string:
		if i, err := strconv.Atoi(strings.TrimSpace(n)); err == nil {
			return i, true
		}
	}
	return 0, false
}

// list reads a key that is a comma-separated string or a YAML list of names; absent
// is nil, an empty one is an empty, non-nil list.
func list(fields map[string]any, key string) ([]string, error) {
	v, ok := fields[key]
	if !ok || v == nil {
		return nil, nil
	}
	out := []string{}
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch v := v.(type) {
	case string:
		for s := range strings.SplitSeq(v, ",") {
			add(s)
		}
	case []any:
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("its %s holds %v, not a tool name", key, e)
			}
			add(s)
		}
	default:
		return nil, fmt.Errorf("its %s is neither a comma-separated string nor a list of tool names", key)
	}
	return out, nil
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// claudeKeys are the front-matter keys Claude Code documents for an agent: a line
// starting with one of them starts that key when the block is read leniently.
var claudeKeys = append(slices.Clone(known), "color", "permissionMode", "maxTurns", "skills", "hooks", "mcpServers", "memory", "background", "isolation", "effort", "disabled")

// lenient reads a front matter block that is not YAML as Claude Code does: each line
// starting with a known key and a colon starts that key, every other line continues
// it (frontmatter.Loose, with lists written either way kept as lists).
func lenient(block string) (map[string]any, bool) {
	return frontmatter.Loose(block, func(k string) bool { return slices.Contains(claudeKeys, k) })
}
