package lsp

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gantry-dev/gantry/internal/contain"
	"github.com/gantry-dev/gantry/internal/dirwatch"
	"github.com/gantry-dev/gantry/internal/resource"
)

// DefaultDiagnosticsWait bounds the wait for a server's diagnostics after a write.
// The wait ends as soon as the server publishes for the new version, so the bound is
// generous: pyright on a large file under load took longer than 3 s.
const DefaultDiagnosticsWait = 10 * time.Second

// ReadyWait bounds the wait for a server to be ready before its first query.
const ReadyWait = 15 * time.Second

// Options configure a Manager.
type Options struct {
	// Servers is the server table (nil: Defaults).
	Servers []Spec
	// DiagnosticsWait bounds the wait for diagnostics after a write (0: the default).
	DiagnosticsWait time.Duration
	// LookPath resolves a command (nil: PATH, then Go's bin folders).
	LookPath func(string) (string, error)
	// Policy is the session's, which every server runs under (nil: gantry's own).
	// Servers are shared only between sessions of the same policy (Policy.ID).
	Policy *contain.Policy
	// Observe, when set, hears what the clients this Manager starts send and wait
	// for (Event): for tests that check the order of things, and for measurements.
	// It is called synchronously and must not block.
	Observe func(Event)
}

// Manager finds and starts the language servers of a workspace. It is given the
// session's resource pool; the servers live in the process's (their keys' scope is
// resource.Process: keyed by server and root), so every session and subagent of the
// process shares them and the pool closes them at exit; the Manager adds the restart
// of a crashed server (once per server and root) and status.
type Manager struct {
	pool      *resource.Pool
	servers   []Spec
	wait      time.Duration
	lookPath  func(string) (string, error)
	policy    *contain.Policy
	observe   func(Event)
	mu        sync.Mutex
	restarted map[resource.Key]string // why the server of a key was restarted
	crashed   map[resource.Key]string // a server that crashed after its restart
	bins      map[string]binaryEntry  // a server's binary, once resolved (by server name)
	roots     map[rootKey]string      // a server's root for a folder ("": none), while the journal names no change
	watch     *journal                // changes of the folders walked and of the binaries' folders, once opened (nil: stat them; m.mu)
}

type rootKey struct{ server, dir string }

// journal is the Manager's change journal, a resource of its session's pool (closed
// with it), opened by the first lookup that caches what it finds.
type journal struct{ *dirwatch.Journal }

func (j journal) Close(context.Context) error { return j.Journal.Close() }

// journal returns the Manager's change journal, opening it when open is set: a
// resource of the session (its caches are this Manager's, so its key names the
// Manager), nil without a pool or before it is opened.
func (m *Manager) journal(open bool) *dirwatch.Journal {
	m.mu.Lock()
	w := m.watch
	m.mu.Unlock()
	if w != nil || !open || m.pool == nil {
		if w == nil {
			return nil
		}
		return w.Journal
	}
	key := resource.Key{Scope: resource.Session, Kind: "dirwatch", Of: fmt.Sprintf("language servers %p", m)}
	j, err := resource.Get(context.Background(), m.pool, key, func(context.Context) (journal, error) {
		return journal{dirwatch.New()}, nil
	})
	if err != nil {
		return nil // the pool is closed: stat instead
	}
	m.mu.Lock()
	m.watch = &j
	m.mu.Unlock()
	return j.Journal
}

// Pool is the resource pool the Manager was given (nil for doctor's), for what the
// lsp tools keep beside the servers (their file cache).
func (m *Manager) Pool() *resource.Pool { return m.pool }

// running lists the pool's running resources (none without a pool).
func (m *Manager) running() []resource.Key {
	if m.pool == nil {
		return nil
	}
	return m.pool.Running()
}

// NewManager returns a Manager whose servers live in pool, the session's (nil: a
// Manager that only finds servers and reports on them, for doctor). It opens nothing:
// the journal and the servers start when a lookup or a call needs them.
func NewManager(pool *resource.Pool, o Options) *Manager {
	m := &Manager{pool: pool, servers: o.Servers, wait: o.DiagnosticsWait, lookPath: o.LookPath, policy: o.Policy, observe: o.Observe,
		restarted: map[resource.Key]string{}, crashed: map[resource.Key]string{}, bins: map[string]binaryEntry{},
		roots: map[rootKey]string{}}
	if m.servers == nil {
		m.servers = Defaults()
	}
	if m.wait <= 0 {
		m.wait = DefaultDiagnosticsWait
	}
	if m.lookPath == nil {
		m.lookPath = lookPath
	}
	return m
}

// DiagnosticsWait is the bound on the wait for diagnostics after a write.
func (m *Manager) DiagnosticsWait() time.Duration { return m.wait }

// Target is the server that serves a file, if one can: its row, root and binary.
type Target struct {
	Spec   Spec
	Root   string
	Binary string
	policy string // the ID of the policy its server runs under
}

// Key is the target's key in the pool.
func (t Target) Key() resource.Key {
	return resource.Key{Kind: "lsp:" + t.Spec.Name, Of: t.Root, Policy: t.policy}
}

// For finds the server of the file at path (absolute): the row
// serving its extension whose marker is found from its folder up to workspace and
// whose binary resolves. problem says why none can serve it ("" with ok).
func (m *Manager) For(path string) (t Target, ok bool, problem string) {
	var why []string
	m.refresh()
	for _, s := range m.servers {
		if !s.serves(path) {
			continue
		}
		root := m.root(s, filepath.Dir(path))
		if root == "" {
			why = append(why, fmt.Sprintf("%s needs one of %s in the folder of %s or above, and none is there", s.Name,
				strings.Join(s.Markers, ", "), filepath.Base(path)))
			continue
		}
		bin := m.binary(s)
		if bin == "" {
			why = append(why, fmt.Sprintf("%s would serve %s but %s", s.Name, root, notInstalled(s)))
			continue
		}
		return Target{Spec: s, Root: root, Binary: bin, policy: m.policyID()}, true, ""
	}
	if len(why) == 0 {
		return Target{}, false, fmt.Sprintf("No language server is configured for %s files.", extOf(path))
	}
	return Target{}, false, "No language server can serve " + filepath.Base(path) + ": " + strings.Join(why, "; ") + "."
}

func extOf(p string) string {
	if e := filepath.Ext(p); e != "" {
		return e
	}
	return filepath.Base(p)
}

// Usable says, cheaply, whether a server could serve path: for a write, so that a
// project with no server costs nothing.
func (m *Manager) Usable(path string) bool {
	_, ok, _ := m.For(path)
	return ok
}

// Client returns the running server of t, starting it on first use and waiting for it
// to be ready. A server found dead is restarted once, and note says so; a second
// crash is an error naming its stderr.
func (m *Manager) Client(ctx context.Context, t Target) (c *Client, note string, err error) {
	return m.ClientWithin(ctx, t, ReadyWait)
}

// ClientWithin is Client with its own bound on the wait for a server to be ready.
// ready 0 waits for no readiness: for a write, which next opens the file and waits
// for its diagnostics. A server publishes those once it has loaded what the file
// needs, so a wait for its progress to end first only puts the open after the load
// (a cold gopls's first write: docs/benchmarks.md, "An edit's wait for diagnostics").
func (m *Manager) ClientWithin(ctx context.Context, t Target, ready time.Duration) (c *Client, note string, err error) {
	key := t.Key()
	m.mu.Lock()
	crashed := m.crashed[key]
	m.mu.Unlock()
	if crashed != "" {
		return nil, "", errors.New(crashed + "; it was restarted once already, so it is not started again (use reload)")
	}
	get := func() (*Client, error) {
		return resource.Get(ctx, m.pool, key, func(ctx context.Context) (*Client, error) {
			return start(ctx, m.policy, t.Spec, t.Binary, t.Root, m.observe)
		})
	}
	c, err = get()
	if err != nil {
		return nil, "", err
	}
	if !c.Alive() {
		died := c.Died()
		m.pool.Fail(key, died)
		m.mu.Lock()
		_, again := m.restarted[key]
		if again {
			m.crashed[key] = died.Error()
		} else {
			m.restarted[key] = died.Error()
		}
		m.mu.Unlock()
		if again {
			return nil, "", fmt.Errorf("%w; it was restarted once already, so it is not started again (use reload)", died)
		}
		if c, err = get(); err != nil {
			return nil, "", err
		}
		note = fmt.Sprintf("(%s had crashed and was restarted: %v.)", t.Spec.Name, died)
	}
	if !t.Spec.ReadyOnDiagnostics && ready > 0 {
		c.WaitReady(ctx, ready)
	}
	return c, note, nil
}

// Reload stops the servers running for roots inside workspace (the next use starts
// them again) and forgets their crashes and the binaries resolved. It returns what it stopped.
func (m *Manager) Reload(ctx context.Context, workspace string) ([]string, error) {
	var stopped []string
	var errs []error
	for _, k := range m.running() {
		if !strings.HasPrefix(k.Kind, "lsp:") || !(within(k.Of, workspace) || within(workspace, k.Of)) {
			continue
		}
		errs = append(errs, m.pool.Stop(ctx, k))
		stopped = append(stopped, strings.TrimPrefix(k.Kind, "lsp:")+" for "+k.Of)
	}
	m.mu.Lock()
	clear(m.restarted)
	clear(m.crashed)
	clear(m.bins)
	clear(m.roots)
	m.mu.Unlock()
	return stopped, errors.Join(errs...)
}

// Status says, per server of the table, whether it runs for which root under
// workspace, and why not otherwise: no marker, binary not found, crashed.
func (m *Manager) Status(workspace string) []string {
	var out []string
	running := map[string][]string{}
	for _, k := range m.running() {
		if name, ok := strings.CutPrefix(k.Kind, "lsp:"); ok {
			running[name] = append(running[name], k.Of)
		}
	}
	for _, s := range m.servers {
		lang := s.Language
		if lang == "" {
			lang = strings.Join(s.Extensions, " ")
		}
		roots := running[s.Name]
		sort.Strings(roots)
		var line string
		switch {
		case len(roots) > 0:
			var parts []string
			for _, r := range roots {
				p := r
				if c, ok := resource.Peek[*Client](m.pool, resource.Key{Kind: "lsp:" + s.Name, Of: r, Policy: m.policyID()}); ok && !c.Alive() {
					p += " (crashed: " + c.Died().Error() + ")"
				}
				m.mu.Lock()
				if why := m.restarted[resource.Key{Kind: "lsp:" + s.Name, Of: r, Policy: m.policyID()}]; why != "" {
					p += " (restarted once after: " + why + ")"
				}
				m.mu.Unlock()
				parts = append(parts, p)
			}
			line = fmt.Sprintf("%s: %s runs for %s", lang, s.Name, strings.Join(parts, ", "))
		default:
			line = m.idle(s, lang, workspace)
		}
		out = append(out, line)
	}
	return out
}

// idle says why s does not run for workspace.
func (m *Manager) idle(s Spec, lang, workspace string) string {
	m.mu.Lock()
	for k, why := range m.crashed {
		if k.Kind == "lsp:"+s.Name {
			m.mu.Unlock()
			return fmt.Sprintf("%s: %s crashed for %s: %s", lang, s.Name, k.Of, why)
		}
	}
	m.mu.Unlock()
	root := findMarker(s, workspace)
	bin := s.binary(m.lookPath)
	switch {
	case root == "" && bin == "":
		return fmt.Sprintf("%s: %s not started: no %s here, and %s", lang, s.Name, strings.Join(s.Markers, ", "), notInstalled(s))
	case root == "":
		return fmt.Sprintf("%s: %s not started: no %s here (%s is installed)", lang, s.Name, strings.Join(s.Markers, ", "), bin)
	case bin == "":
		return fmt.Sprintf("%s: %s not started: %s has a marker but %s", lang, s.Name, root, notInstalled(s))
	}
	return fmt.Sprintf("%s: %s can serve %s (%s); it starts on first use", lang, s.Name, root, bin)
}

// findMarker is the nearest folder from workspace up holding a marker of s, or "".
func findMarker(s Spec, workspace string) string { return s.root(workspace, "/") }

// Workspace lists the servers that can serve workspace as a whole: those whose marker
// is in it or above and whose binary resolves (for workspace symbols and the project
// checker).
func (m *Manager) Workspace(workspace string) []Target {
	var out []Target
	for _, s := range m.servers {
		root := findMarker(s, workspace)
		if root == "" {
			continue
		}
		if bin := m.binary(s); bin != "" {
			out = append(out, Target{Spec: s, Root: root, Binary: bin, policy: m.policyID()})
		}
	}
	return out
}

// Checkers lists the project checkers that apply to workspace: per server whose
// marker is found there (its binary need not be installed), the root and command.
func (m *Manager) Checkers(workspace string) []Target {
	var out []Target
	for _, s := range m.servers {
		if s.Checker == "" {
			continue
		}
		if root := findMarker(s, workspace); root != "" {
			out = append(out, Target{Spec: s, Root: root, policy: m.policyID()})
		}
	}
	return out
}

// Binaries maps each server of the table to the binary that would run ("": none is
// installed).
func (m *Manager) Binaries() map[string]string {
	out := map[string]string{}
	for _, s := range m.servers {
		out[s.Name] = s.binary(m.lookPath)
	}
	return out
}

// refresh forgets the roots and binaries the journal says may have changed: a marker
// created or removed in a folder walked, a binary replaced or removed, a folder gone.
func (m *Manager) refresh() {
	w := m.journal(false) // nothing is watched before it opens
	if w == nil {
		return
	}
	ch := w.Drain()
	if !ch.Any() {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if ch.All || len(ch.Folders) > 0 {
		clear(m.roots)
		clear(m.bins)
		return
	}
	markers := false
	for p := range ch.Paths {
		base := filepath.Base(p)
		for _, s := range m.servers {
			for _, mk := range s.Markers {
				first, _, _ := strings.Cut(filepath.ToSlash(mk), "/")
				markers = markers || first == base
			}
		}
	}
	if markers {
		clear(m.roots)
	}
	for name, b := range m.bins {
		if ch.Paths[b.path] {
			delete(m.bins, name)
		}
	}
}

// root is s's root for a file in dir: known while every folder walked to find it is
// watched and the journal names no change of a marker, else found again.
func (m *Manager) root(s Spec, dir string) string {
	k := rootKey{s.Name, dir}
	m.mu.Lock()
	root, ok := m.roots[k]
	m.mu.Unlock()
	if ok {
		return root
	}
	root = s.root(dir, "/")
	w := m.journal(true)
	if w == nil {
		return root
	}
	// The folders walked are watched, then walked again: a marker made or removed
	// after the watch is named by the next refresh.
	for d := dir; ; d = filepath.Dir(d) {
		if !w.Watch(d) {
			return root
		}
		if d == root || d == filepath.Dir(d) {
			break
		}
	}
	root = s.root(dir, "/")
	m.mu.Lock()
	if len(m.roots) >= 4096 {
		clear(m.roots)
	}
	m.roots[k] = root
	m.mu.Unlock()
	return root
}

// binary is the binary of s: the one resolved before while it is still an
// executable file (while the journal names no change of it, or, without one, as a
// stat says), else a new lookup (a binary not found is looked up again on the next
// call, so one installed meanwhile is found).
func (m *Manager) binary(s Spec) string {
	m.mu.Lock()
	b := m.bins[s.Name]
	m.mu.Unlock()
	if b.path != "" && (b.watched || executable(b.path)) {
		return b.path
	}
	b = binaryEntry{path: s.binary(m.lookPath)}
	if b.path == "" {
		m.mu.Lock()
		delete(m.bins, s.Name)
		m.mu.Unlock()
		return ""
	}
	// Watched, then checked: a change after the watch is named by the next refresh.
	w := m.journal(true)
	b.watched = w != nil && w.Watch(filepath.Dir(b.path)) && executable(b.path)
	m.mu.Lock()
	m.bins[s.Name] = b
	m.mu.Unlock()
	return b.path
}

type binaryEntry struct {
	path    string
	watched bool // its folder is watched: trusted until the journal names it
}

func executable(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// notInstalled says that none of s's commands is installed, and how to install it
// when gantry knows.
func notInstalled(s Spec) string {
	out := "none of " + strings.Join(s.Commands, ", ") + " is installed"
	if len(s.Commands) == 1 {
		out = s.Commands[0] + " is not installed"
	}
	if s.Install != "" {
		out += " (install it: " + s.Install + ")"
	}
	return out
}

// policyID is the ID of the policy the Manager's servers run under.
func (m *Manager) policyID() string {
	if m.policy == nil {
		return ""
	}
	return m.policy.ID
}

// Policy is the session policy the Manager's servers and project checkers run under.
func (m *Manager) Policy() *contain.Policy { return m.policy }
