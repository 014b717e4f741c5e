package app

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/gantry-dev/gantry/internal/config"
	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/permission"
	"github.com/gantry-dev/gantry/internal/session"
)

// sandboxer decides, call by call, whether a bash command runs in the sandbox (the
// flag, else sandbox.enabled, else on in yolo where a sandbox can be made) and what it
// may write.
type sandboxer struct {
	flag, cfg *bool
	gate      *permission.Engine
	config    *config.Config
	once      sync.Once
	spec      contain.Sandbox
	// store is the folder of the session's store, read-only to commands: the data
	// folder, already so, or the one --session-dir names.
	store string
}

// newSandboxer builds the sandbox of a session's commands.
func newSandboxer(cfg *config.Config, flag *bool, gate *permission.Engine) *sandboxer {
	s := &sandboxer{flag: flag, cfg: cfg.Sandbox.Enabled, gate: gate, config: cfg}
	gate.SetSandboxed(s.onIn)
	return s
}

// onIn says whether commands run in the sandbox in mode m.
func (s *sandboxer) onIn(m permission.Mode) bool {
	if s == nil {
		return false
	}
	switch {
	case s.flag != nil:
		return *s.flag
	case s.cfg != nil:
		return *s.cfg
	}
	b, _ := contain.SandboxStatus()
	return m == permission.ModeYolo && b != contain.BackendNone
}

// current is the sandbox of a command started now, or nil. What it may write is
// worked out on first use, once the tools (whose deny rules it reads) are known.
func (s *sandboxer) current() *contain.Sandbox {
	if s == nil || !s.onIn(s.gate.Mode()) {
		return nil
	}
	sb := s.build()
	return &sb
}

// wanted says whether commands should run in the sandbox now, whether or not one can
// be made here.
func (s *sandboxer) wanted() bool {
	switch {
	case s.flag != nil:
		return *s.flag
	case s.cfg != nil:
		return *s.cfg
	}
	return s.gate.Mode() == permission.ModeYolo
}

// lost says which of the sandbox's guarantees do not hold here, when commands should
// run in one: a notice at the session's start.
func (s *sandboxer) lost() []string {
	if s == nil || !s.wanted() {
		return nil
	}
	if b, _ := contain.SandboxStatus(); b == contain.BackendBubblewrap {
		return nil // every guarantee holds: no need to build the spec
	}
	sb := s.build()
	return contain.Lost(&sb)
}

// build is the sandbox of the session's commands, worked out once.
func (s *sandboxer) build() contain.Sandbox {
	s.once.Do(func() {
		s.spec = contain.Sandbox{
			Writable: writableRoots(s.config), ReadOnly: readOnlyPaths(s.config, s.gate), Network: s.config.Sandbox.Network,
			// The deny rules compiled into the kernel's view: the paths of read
			// rules masked, the programs of whole-program bash rules hidden.
			Unreadable: s.gate.DeniedReadPaths(), Hidden: hideable(s.gate.DeniedPrograms()),
		}
		if s.store != "" && !slices.Contains(s.spec.ReadOnly, s.store) {
			s.spec.ReadOnly = append(s.spec.ReadOnly, s.store)
		}
	})
	return s.spec
}

// hideable drops bash from the programs to hide: every command runs as `bash -c`, so
// hiding it would stop them all; a rule denying bash whole stays with the parser and
// the exec supervisor, which see the commands bash starts.
func hideable(progs []string) []string {
	return slices.DeleteFunc(progs, func(p string) bool { return filepath.Base(p) == "bash" })
}

// writableRoots are the folders commands may write: the project, /tmp, $TMPDIR, the
// toolchains' caches, and sandbox.writable.
func writableRoots(cfg *config.Config) []string {
	roots := []string{cfg.Root(), "/tmp", os.TempDir()}
	if home, err := os.UserHomeDir(); err == nil {
		roots = append(roots, filepath.Join(home, ".cache"), filepath.Join(home, ".npm"), filepath.Join(home, "go", "pkg", "mod"))
	}
	for _, v := range []string{"GOMODCACHE", "GOCACHE"} {
		if d := goEnv(v); d != "" {
			roots = append(roots, d)
		}
	}
	return append(roots, cfg.Sandbox.Writable...)
}

// goEnv is a variable of the go command's environment ("" without go).
func goEnv(name string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	if _, err := exec.LookPath("go"); err != nil {
		return ""
	}
	// gantry's own question, outside any session (the sandbox is being made).
	out, err := (*contain.Policy)(nil).Output(contain.Spec{Argv: []string{"go", "env", name}})
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(out))
}

// readOnlyPaths are the paths inside the writable folders that stay read-only: the
// files that make code run later (gantry's own settings and user config, Claude Code's
// project and user settings, the MCP file, .git with its hooks and config, the shell's
// start-up files) and the folders the deny rules of the file-writing tools name
// plainly. Only those that exist are bound (ro-bind-try); one made later is covered by
// the folder-trust check, which asks before a new project file runs anything.
func readOnlyPaths(cfg *config.Config, gate *permission.Engine) []string {
	root := cfg.Root()
	// gantry's data folder too: the sessions, the kept trust of folders, the
	// checkpoints (a server widened to the user's data folder must not reach them).
	out := []string{filepath.Join(root, ".gantry"), filepath.Join(root, ".git"), filepath.Join(root, ".mcp.json"), config.UserDir(),
		filepath.Dir(session.DefaultPath())}
	if m, _ := filepath.Glob(filepath.Join(root, ".claude", "settings*.json")); len(m) > 0 {
		out = append(out, m...)
	}
	for _, rel := range permission.OtherMCPFiles { // Codex's, opencode's and Crush's servers
		out = append(out, filepath.Join(root, rel))
	}
	if home, err := os.UserHomeDir(); err == nil {
		for _, f := range []string{
			".bashrc", ".bash_profile", ".bash_login", ".bash_logout", ".profile",
			".zshrc", ".zshenv", ".zprofile", ".zlogin", ".config/fish/config.fish",
			".claude/settings.json", ".claude/settings.local.json", ".claude.json",
		} {
			out = append(out, filepath.Join(home, f))
		}
	}
	return append(out, gate.DeniedWritePaths()...)
}
