package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/goccy/go-yaml"
)

// OutputStyle is an output style: instructions on how the model answers (tone, format,
// role), added to the end of the system prompt when chosen.
type OutputStyle struct {
	// Name is the front matter's name, else the file's name without .md.
	Name        string
	Description string
	// KeepCodingInstructions is the front matter's keep-coding-instructions: false
	// (the default, as in Claude Code) says the style's instructions win over gantry's
	// coding ones where they differ.
	KeepCodingInstructions bool
	Path                   string
	// Body is the text after the front matter.
	Body string
}

// outputStylesDir is the folder of output style files, in each place looked in.
const outputStylesDir = "output-styles"

// outputStyleFolders are the folders output styles are read from, the weakest first:
// the user's (gantry's, then Claude Code's), then the project root's (Claude Code's,
// then gantry's). A later style with the same name (in any case) replaces an earlier.
func outputStyleFolders(cwd string) []string {
	var out []string
	if d := UserDir(); d != "" {
		out = append(out, filepath.Join(d, outputStylesDir))
	}
	if d := ClaudeDir(); d != "" {
		out = append(out, filepath.Join(d, outputStylesDir))
	}
	root := ProjectRoot(absClean(cwd))
	return append(out, filepath.Join(root, ".claude", outputStylesDir), filepath.Join(root, ".gantry", outputStylesDir))
}

// OutputStyles returns the output styles found for a session in cwd, sorted by name.
// A folder that is not there has none; a file that cannot be read is an error naming
// it, after the others are read. Styles are text for the model, read whether the folder
// is trusted or not, like the memory files.
func OutputStyles(cwd string) ([]OutputStyle, error) {
	var styles []OutputStyle
	var errs []error
	for _, dir := range outputStyleFolders(cwd) {
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) && !errors.Is(err, syscall.ENOTDIR) {
				errs = append(errs, fmt.Errorf("output styles folder: %w", err))
			}
			continue
		}
		for _, e := range entries {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".md") {
				continue
			}
			path := filepath.Join(dir, e.Name())
			data, err := os.ReadFile(path)
			if err != nil {
				errs = append(errs, fmt.Errorf("output style: %w", err))
				continue
			}
			s := parseOutputStyle(path, string(data))
			styles = slices.DeleteFunc(styles, func(o OutputStyle) bool { return strings.EqualFold(o.Name, s.Name) })
			styles = append(styles, s)
		}
	}
	slices.SortFunc(styles, func(a, b OutputStyle) int { return strings.Compare(strings.ToLower(a.Name), strings.ToLower(b.Name)) })
	return styles, errors.Join(errs...)
}

// parseOutputStyle reads an output style file: its front matter's name, description
// and keep-coding-instructions, and its body. Front matter that is not valid YAML is
// part of the body, and the name is the file's.
func parseOutputStyle(path, text string) OutputStyle {
	s := OutputStyle{Name: strings.TrimSuffix(filepath.Base(path), ".md"), Path: path, Body: strings.TrimSpace(text)}
	rest, ok := strings.CutPrefix(strings.TrimPrefix(text, "\ufeff"), "---\n")
	if !ok {
		return s
	}
	var block string
	if strings.HasPrefix(rest, "---") {
		rest = rest[3:]
	} else if end := strings.Index(rest, "\n---"); end >= 0 {
		block, rest = rest[:end], rest[end+4:]
	} else {
		return s
	}
	var fm struct {
		Name        string `yaml:"name"`
		Description string `yaml:"description"`
		Keep        any    `yaml:"keep-coding-instructions"`
	}
	if err := yaml.Unmarshal([]byte(block), &fm); err != nil {
		return s
	}
	if n := strings.TrimSpace(fm.Name); n != "" {
		s.Name = n
	}
	s.Description = strings.TrimSpace(fm.Description)
	switch k := fm.Keep.(type) {
	case bool:
		s.KeepCodingInstructions = k
	case string:
		s.KeepCodingInstructions = strings.EqualFold(strings.TrimSpace(k), "true")
	}
	s.Body = strings.TrimSpace(rest)
	return s
}

// ClaudeOutputStyle is the outputStyle of the Claude Code settings files of the
// project of cwd ("" when none sets it): the user's, then the project's shared and
// local files, the later winning, as in Claude Code. A file that cannot be read or
// decoded is skipped here (the settings loader reports it).
func ClaudeOutputStyle(cwd string) string {
	style := ""
	for _, path := range claudeFiles(ProjectRoot(absClean(cwd))) {
		data, err := os.ReadFile(path)
		if err != nil || len(data) > maxFileSize {
			continue
		}
		var f struct {
			OutputStyle string `json:"outputStyle"`
		}
		if json.Unmarshal(data, &f) == nil && strings.TrimSpace(f.OutputStyle) != "" {
			style = strings.TrimSpace(f.OutputStyle)
		}
	}
	return style
}
