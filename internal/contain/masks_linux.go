package contain

import (
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
)

// programDirs are the folders a hidden program is looked for in: PATH's, and the
// usual ones whether on PATH or not.
func programDirs() []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	dirs = append(dirs, "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/lib/git-core")
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if !filepath.IsAbs(d) || seen[d] {
			continue
		}
		seen[d] = true
		out = append(out, d)
	}
	return out
}

// inode is a file's identity on this machine.
type inode struct{ dev, ino uint64 }

func inodeOf(fi os.FileInfo) (inode, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return inode{}, false
	}
	return inode{uint64(st.Dev), st.Ino}, true //nolint:unconvert // Dev's type differs by processor
}

// hiddenFiles are the files of the programs names name (each a name or a path): the
// file each resolves to in programDirs, and every file of those folders that is the
// same file (a hard link) — by their real paths, links resolved, sorted.
func hiddenFiles(names []string) []string {
	dirs := programDirs()
	ids := map[inode]bool{}
	var out []string
	add := func(p string) {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			return
		}
		fi, err := os.Stat(real)
		if err != nil || !fi.Mode().IsRegular() {
			return
		}
		if id, ok := inodeOf(fi); ok {
			ids[id] = true
		}
		out = append(out, real)
	}
	for _, n := range names {
		if n == "" {
			continue
		}
		if strings.Contains(n, "/") {
			add(n)
			continue
		}
		for _, d := range dirs {
			add(filepath.Join(d, n))
		}
	}
	if len(ids) == 0 {
		return nil
	}
	for _, d := range dirs {
		entries, err := os.ReadDir(d)
		if err != nil {
			continue
		}
		for _, e := range entries {
			p := filepath.Join(d, e.Name())
			fi, err := os.Stat(p) // a link is judged by what it points at
			if err != nil || !fi.Mode().IsRegular() {
				continue
			}
			if id, ok := inodeOf(fi); ok && ids[id] {
				add(p)
			}
		}
	}
	return sortedUnique(out)
}

// mask is one path to cover, by its real path.
type mask struct {
	path string
	dir  bool
}

// masks are what sb covers: its unreadable paths that exist and the files of its
// hidden programs, by their real paths, parents first.
func masks(sb *Sandbox) []mask {
	var out []mask
	seen := map[string]bool{}
	for _, p := range sb.Unreadable {
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue // not there: nothing to mask
		}
		fi, err := os.Stat(real)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, mask{path: real, dir: fi.IsDir()})
	}
	for _, f := range hiddenFiles(sb.Hidden) {
		if !seen[f] {
			seen[f] = true
			out = append(out, mask{path: f})
		}
	}
	sortMasks(out)
	return out
}

func sortMasks(ms []mask) {
	sort.Slice(ms, func(i, j int) bool { return ms[i].path < ms[j].path })
}

// bwrapMasks are bubblewrap's arguments that cover sb's masks: /dev/null bound
// read-only over a file (it reads as empty, cannot be run or mapped), an empty
// read-only tmpfs over a folder.
func bwrapMasks(sb *Sandbox) []string {
	var args []string
	for _, m := range masks(sb) {
		if m.dir {
			args = append(args, "--tmpfs", m.path, "--remount-ro", m.path)
			continue
		}
		args = append(args, "--ro-bind", "/dev/null", m.path)
	}
	return args
}

// beneath tells whether path is dir or inside it.
func beneath(path, dir string) bool {
	return path == dir || dir == "/" || strings.HasPrefix(path, strings.TrimSuffix(dir, "/")+"/")
}

// landlockDenied splits sb's masks for Landlock, which can only grant: denied are
// those it can leave out of the read and execute grants (a grant on every other entry
// of each of their parent folders); kept are those it cannot, because a parent folder
// is writable (a file made there later would get no grant and could not be read).
func landlockDenied(sb *Sandbox) (denied, kept []string) {
	writable := existing(sb.Writable)
	for _, m := range masks(sb) {
		ok := true
		for _, w := range writable {
			if beneath(filepath.Dir(m.path), w) {
				ok = false
				break
			}
		}
		if ok {
			denied = append(denied, m.path)
		} else {
			kept = append(kept, m.path)
		}
	}
	return denied, kept
}

// readGrants are the paths Landlock grants reading and running on, beneath, so that
// nothing of denied is granted: every entry of every parent folder of a denied path
// but the denied paths and their parents themselves. Symbolic links get no grant:
// what they point at has its own.
func readGrants(denied []string) []string {
	if len(denied) == 0 {
		return nil
	}
	skip := map[string]bool{}
	parents := map[string]bool{}
	for _, d := range denied {
		skip[d] = true
		for p := filepath.Dir(d); ; p = filepath.Dir(p) {
			parents[p], skip[p] = true, true
			if p == "/" {
				break
			}
		}
	}
	var out []string
	for p := range parents {
		entries, err := os.ReadDir(p)
		if err != nil {
			continue
		}
		for _, e := range entries {
			c := filepath.Join(p, e.Name())
			if skip[c] || e.Type()&os.ModeSymlink != 0 {
				continue
			}
			out = append(out, c)
		}
	}
	return sortedUnique(out)
}
