package permission

import (
	"bytes"
	"crypto/sha256"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/gantry-dev/gantry/internal/contain"
)

// ExecGuard is the deny rules of bash as the exec supervisor applies them: to every
// program a bash call really executes, named by what the program is — the resolved
// executable — with its real arguments. A symlink, a hard link or a byte-for-byte copy
// of a program under another name is that program; the dynamic loader is a wrapper
// whose first operand is the program; a script with a #! line runs as its interpreter
// and as itself.
type ExecGuard struct {
	rules []Rule
	index *programIndex
}

// ExecGuard returns the guard of the deny rules that name bash, or nil when there are
// none.
func (e *Engine) ExecGuard() *ExecGuard {
	e.mu.Lock()
	defer e.mu.Unlock()
	var rules []Rule
	for _, r := range e.deny {
		if r.MatchesTool("bash") {
			rules = append(rules, r)
		}
	}
	if len(rules) == 0 {
		return nil
	}
	return &ExecGuard{rules: rules, index: programs()}
}

// maxInterp bounds the #! interpreters and loaders followed (Linux's own bound is 4).
const maxInterp = 4

// Judge implements contain.Judge.
func (g *ExecGuard) Judge(x contain.Exec) contain.Refusal {
	if x.Truncated {
		return contain.Refusal{Rule: "exec supervisor", Command: clip(x.Path+" "+strings.Join(x.Argv, " ")) + " (arguments too long to check)"}
	}
	return g.judge(x, x.File, x.Path, x.Argv, 0)
}

// judge checks the program f (named path by the process) run with argv.
func (g *ExecGuard) judge(x contain.Exec, f *os.File, path string, argv []string, depth int) contain.Refusal {
	var args []string
	if len(argv) > 1 {
		args = argv[1:]
	}
	names := g.index.names(f, path)
	// A program may read the name it is called by (git runs git-push as push,
	// busybox its applets), and the caller chooses argv[0] (exec -a).
	if len(argv) > 0 {
		if n := filepath.Base(argv[0]); n != "" && n != "." && n != "/" && !containsString(names, n) {
			names = append(names, n)
		}
	}
	for _, name := range names {
		if r := g.match(name, args); r.Refused() {
			return r
		}
	}
	if f == nil || depth >= maxInterp {
		return contain.Refusal{}
	}
	// The dynamic loader runs the program named by its first operand.
	for _, name := range names {
		if !isLoader(name) {
			continue
		}
		prog, rest, ok := loaderOperand(args)
		if !ok {
			break
		}
		pf, err := x.Open(prog)
		if err != nil {
			if r := g.match(filepath.Base(prog), rest); r.Refused() {
				return r
			}
			break
		}
		r := g.judge(x, pf, prog, append([]string{prog}, rest...), depth+1)
		pf.Close()
		if r.Refused() {
			return r
		}
		break
	}
	// An interpreter given a script that is a known program runs that program: node
	// given npm's npm-cli.js with run deploy is npm run deploy.
	for _, name := range names {
		if !isInterpreter(name) && !isShell(name) {
			continue
		}
		if r := g.scriptProgram(x, args); r.Refused() {
			return r
		}
		break
	}
	// A script runs as its interpreter, which the kernel starts without an exec of its own.
	if interp, arg, ok := shebang(f); ok {
		iargv := []string{interp}
		if arg != "" {
			iargv = append(iargv, arg)
		}
		iargv = append(append(iargv, path), args...)
		pf, err := x.Open(interp)
		if err != nil {
			return g.match(filepath.Base(interp), iargv[1:])
		}
		defer pf.Close()
		return g.judge(x, pf, interp, iargv, depth+1)
	}
	return contain.Refusal{}
}

// maxScriptOperands bounds the operands of an interpreter tried as its script (an
// option's value may come first).
const maxScriptOperands = 3

// scriptProgram judges the operands of an interpreter that name a known program
// (one of the index, by identity) as that program run with the words after it.
func (g *ExecGuard) scriptProgram(x contain.Exec, args []string) contain.Refusal {
	tried := 0
	for k, a := range args {
		if a == "--" || strings.HasPrefix(a, "-") {
			continue
		}
		if tried++; tried > maxScriptOperands {
			break
		}
		f, err := x.Open(a)
		if err != nil {
			continue
		}
		known := g.index.known(f)
		f.Close()
		for _, n := range known {
			if r := g.match(n, args[k+1:]); r.Refused() {
				return r
			}
		}
	}
	return contain.Refusal{}
}

// isShell names the shells, which run a script file given as their operand.
func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash":
		return true
	}
	return false
}

// match checks the command name args against the rules: as written, and as the
// program reads it (its global options, another spelling of its subcommand, the
// table of multicmd.go the shell parser reads with).
func (g *ExecGuard) match(name string, args []string) contain.Refusal {
	words := make([]word, 0, len(args)+1)
	words = append(words, word{val: name, lit: true, src: name})
	for _, a := range args {
		words = append(words, litWord(a))
	}
	text := joinWords(words)
	for _, r := range g.rules {
		if r.Match("bash", text) {
			return contain.Refusal{Rule: r.String(), Command: text}
		}
	}
	for _, rd := range otherReadings(words) {
		t := joinWords(rd)
		for _, r := range g.rules {
			if r.Match("bash", t) {
				return contain.Refusal{Rule: r.String(), Command: t}
			}
		}
	}
	return contain.Refusal{}
}

// loaderPattern names the dynamic loaders (ld-linux-x86-64.so.2, ld.so, ld-musl-…).
var loaderPattern = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(ld-linux.*\.so.*|ld\.so(\.[0-9]+)?|ld64\.so.*|ld-musl-.*\.so.*)$`)
})

func isLoader(name string) bool { return loaderPattern().MatchString(name) }

// loaderOptions are the dynamic loader's options that take a value.
var loaderOptions = map[string]bool{
	"--library-path": true, "--inhibit-rpath": true, "--audit": true, "--preload": true,
	"--argv0": true, "--glibc-hwcaps-prefix": true, "--glibc-hwcaps-mask": true,
}

// loaderOperand finds the program the loader's arguments run, and its arguments.
func loaderOperand(args []string) (prog string, rest []string, ok bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			if i+1 < len(args) {
				return args[i+1], args[i+2:], true
			}
			return "", nil, false
		case loaderOptions[a]:
			i++
		case strings.HasPrefix(a, "--"):
			// --list, --verify, --inhibit-cache, --list-tunables: flags
		default:
			return a, args[i+1:], true
		}
	}
	return "", nil, false
}

// shebang reads a #! line: the interpreter and its one optional argument.
func shebang(f *os.File) (interp, arg string, ok bool) {
	var buf [256]byte
	n, _ := f.ReadAt(buf[:], 0)
	line := buf[:n]
	if !bytes.HasPrefix(line, []byte("#!")) {
		return "", "", false
	}
	line = line[2:]
	if i := bytes.IndexByte(line, '\n'); i >= 0 {
		line = line[:i]
	}
	s := strings.Trim(string(line), " \t\r")
	if s == "" {
		return "", "", false
	}
	interp, arg, _ = strings.Cut(s, " ")
	if j := strings.IndexByte(interp, '\t'); j >= 0 {
		interp, arg = interp[:j], interp[j+1:]+" "+arg
	}
	return interp, strings.Trim(arg, " \t"), true
}

// fileID is a file's identity on this machine.
type fileID struct{ dev, ino uint64 }

// identity is the device and inode of a file.
func identity(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true //nolint:unconvert // Dev and Ino differ in type by OS
}

// programIndex knows the programs of the usual folders and of PATH, by identity and
// by size, so that a link or a copy of one is known by its name.
type programIndex struct {
	mu     sync.Mutex
	byID   map[fileID][]string
	bySize map[int64][]*indexed
	hashes map[hashKey][32]byte
}

type indexed struct {
	name, path string
	id         fileID
}

type hashKey struct {
	id    fileID
	size  int64
	mtime int64
}

var (
	indexOnce sync.Once
	index     *programIndex
)

// programDirs are the folders whose programs the index knows, beside PATH's.
var programDirs = []string{"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin"}

// programs is the process's index, made on first use.
func programs() *programIndex {
	indexOnce.Do(func() {
		index = &programIndex{byID: map[fileID][]string{}, bySize: map[int64][]*indexed{}, hashes: map[hashKey][32]byte{}}
		seen := map[string]bool{}
		dirs := append(filepath.SplitList(os.Getenv("PATH")), programDirs...)
		for _, d := range dirs {
			if d == "" || !filepath.IsAbs(d) {
				continue
			}
			real, err := filepath.EvalSymlinks(d)
			if err != nil || seen[real] {
				continue
			}
			seen[real] = true
			index.addDir(real)
		}
	})
	return index
}

// addDir indexes the executable files of dir.
func (ix *programIndex) addDir(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		p := filepath.Join(dir, e.Name())
		fi, err := os.Stat(p)
		if err != nil || !fi.Mode().IsRegular() || fi.Mode()&0o111 == 0 {
			continue
		}
		id, ok := identity(fi)
		if !ok {
			continue
		}
		if !containsString(ix.byID[id], e.Name()) {
			ix.byID[id] = append(ix.byID[id], e.Name())
		}
		ix.bySize[fi.Size()] = append(ix.bySize[fi.Size()], &indexed{name: e.Name(), path: p, id: id})
	}
}

func containsString(ss []string, s string) bool {
	for _, x := range ss {
		if x == s {
			return true
		}
	}
	return false
}

// names are the names the program f (named path) goes by: the base name it was run
// by, its resolved file's, and those of every known program it is — the same file, or
// a copy byte for byte.
func (ix *programIndex) names(f *os.File, path string) []string {
	var out []string
	add := func(n string) {
		if n != "" && n != "." && n != "/" && !containsString(out, n) {
			out = append(out, n)
		}
	}
	add(filepath.Base(path))
	if f == nil {
		return out
	}
	if real, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd()))); err == nil && !strings.HasPrefix(real, "/memfd:") {
		add(filepath.Base(strings.TrimSuffix(real, " (deleted)")))
	}
	fi, err := f.Stat()
	if err != nil {
		return out
	}
	id, ok := identity(fi)
	if !ok {
		return out
	}
	ix.mu.Lock()
	known := ix.byID[id]
	same := ix.bySize[fi.Size()]
	ix.mu.Unlock()
	for _, n := range known {
		add(n)
	}
	if len(known) > 0 || len(same) == 0 || !fi.Mode().IsRegular() {
		return out
	}
	h, ok := ix.hash(f, id, fi)
	if !ok {
		return out
	}
	for _, c := range same {
		if ch, ok := ix.hashOf(c); ok && ch == h {
			add(c.name)
		}
	}
	return out
}

// known are the names of the indexed programs the open file f is (the same file).
func (ix *programIndex) known(f *os.File) []string {
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	id, ok := identity(fi)
	if !ok {
		return nil
	}
	ix.mu.Lock()
	defer ix.mu.Unlock()
	return append([]string(nil), ix.byID[id]...)
}

// hash is the SHA-256 of the open file f, cached by identity, size and time.
func (ix *programIndex) hash(f *os.File, id fileID, fi os.FileInfo) ([32]byte, bool) {
	k := hashKey{id, fi.Size(), fi.ModTime().UnixNano()}
	ix.mu.Lock()
	h, ok := ix.hashes[k]
	ix.mu.Unlock()
	if ok {
		return h, true
	}
	s := sha256.New()
	if _, err := io.Copy(s, io.NewSectionReader(f, 0, fi.Size())); err != nil {
		return h, false
	}
	copy(h[:], s.Sum(nil))
	ix.mu.Lock()
	ix.hashes[k] = h
	ix.mu.Unlock()
	return h, true
}

// hashOf is the hash of a known program.
func (ix *programIndex) hashOf(c *indexed) ([32]byte, bool) {
	f, err := os.Open(c.path)
	if err != nil {
		return [32]byte{}, false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return [32]byte{}, false
	}
	return ix.hash(f, c.id, fi)
}
