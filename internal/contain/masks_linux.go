package contain

import (
	"bytes"
	"encoding/binary"
	"errors"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"
)

// programDirs are the folders a hidden program is looked for in: PATH's, and the
// usual ones whether on PATH or not; each once, by its real path (/bin is /usr/bin on
// most systems now).
func programDirs() []string {
	dirs := filepath.SplitList(os.Getenv("PATH"))
	dirs = append(dirs, "/usr/bin", "/bin", "/usr/sbin", "/sbin", "/usr/local/bin", "/usr/local/sbin", "/usr/lib/git-core")
	var out []string
	seen := map[string]bool{}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		real, err := filepath.EvalSymlinks(d)
		if err != nil || seen[real] {
			continue
		}
		seen[real] = true
		out = append(out, real)
	}
	return out
}

// dirEntry is a folder's entry as the kernel lists it: its name, inode number and
// type, with no stat of its own.
type dirEntry struct {
	name string
	ino  uint64
	typ  uint8
}

// readDirents lists the folder dir with getdents64 alone: a program folder holds
// thousands of entries, and a stat of each would cost tens of milliseconds at every
// command's start.
func readDirents(dir string) ([]dirEntry, error) {
	fd, err := unix.Open(dir, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, err
	}
	defer unix.Close(fd)
	var out []dirEntry
	buf := make([]byte, 32<<10)
	for {
		n, err := unix.Getdents(fd, buf)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return out, err
		}
		if n <= 0 {
			return out, nil
		}
		// struct linux_dirent64: d_ino u64, d_off s64, d_reclen u16, d_type u8, d_name.
		for b := buf[:n]; len(b) >= 19; {
			reclen := int(binary.NativeEndian.Uint16(b[16:18]))
			if reclen < 19 || reclen > len(b) {
				return out, errors.New("a malformed folder entry")
			}
			name := b[19:reclen]
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			if s := string(name); s != "." && s != ".." {
				out = append(out, dirEntry{name: s, ino: binary.NativeEndian.Uint64(b[0:8]), typ: b[18]})
			}
			b = b[reclen:]
		}
	}
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
// same file (a hard link) — by their real paths, links resolved, sorted. A symbolic
// link to one of them needs no mask of its own; one to another hard link of it
// outside these folders is not followed (a stat of each link would cost several
// milliseconds at every command's start).
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
	inos := map[uint64]bool{}
	for id := range ids {
		inos[id.ino] = true
	}
	for _, d := range dirs {
		entries, _ := readDirents(d)
		for _, e := range entries {
			// A hard link has the inode number of the file (a stat confirms the
			// device). A symbolic link to the file needs no mask of its own: it
			// leads to the masked file.
			if e.typ != unix.DT_UNKNOWN && (e.typ == unix.DT_LNK || !inos[e.ino]) {
				continue
			}
			p := filepath.Join(d, e.name)
			fi, err := os.Stat(p)
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
func bwrapMasks(ms []mask) []string {
	var args []string
	for _, m := range ms {
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

// grant is a path Landlock grants reading and running on.
type grant struct {
	path string
	dir  bool
}

// readGrants are the paths Landlock grants reading and running on, beneath, so that
// nothing of denied is granted: every entry of every parent folder of a denied path
// but the denied paths and their parents themselves. Symbolic links get no grant:
// what they point at has its own.
func readGrants(denied []string) []grant {
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
	var out []grant
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
			out = append(out, grant{path: c, dir: e.IsDir()})
		}
	}
	return out
}
