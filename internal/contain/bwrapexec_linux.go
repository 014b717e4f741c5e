package contain

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// shellArgv gives bubblewrap gantry's own `bash -c script` with bash found already:
// bubblewrap runs its command with execvp, which tries each folder of PATH in turn,
// and under the exec supervisor every miss is an exec stopped and answered (a dozen
// on a long PATH, a millisecond). bash is looked up as execvp would inside the
// sandbox, and its name kept as $0 (`bash -c script bash`), so that the shell and its
// error messages call themselves bash as before. Any other argv, or a PATH this cannot
// follow from outside, is left to bubblewrap.
func shellArgv(argv []string, path string, ms []mask) []string {
	if len(argv) != 3 || argv[0] != "bash" || argv[1] != "-c" {
		return argv
	}
	p := sandboxLookPath("bash", path, ms)
	if p == "" {
		return argv
	}
	return []string{p, "-c", argv[2], "bash"}
}

// sandboxLookPath finds name in the folders of path as execvp would in a sandbox
// whose masks are ms: the first executable regular file that no mask covers (a masked
// one is /dev/null or missing inside, and execvp goes on to the next folder). It
// gives "" when it cannot tell: a relative folder (the command's own), one bubblewrap
// replaces (/dev, /proc), an error execvp would stop at, or no such program.
func sandboxLookPath(name, path string, ms []mask) string {
	for _, d := range filepath.SplitList(path) {
		if !filepath.IsAbs(d) || beneath(d, "/dev") || beneath(d, "/proc") {
			return ""
		}
		p := filepath.Join(d, name)
		real, err := filepath.EvalSymlinks(p)
		switch {
		case errors.Is(err, fs.ErrNotExist), errors.Is(err, unix.ENOTDIR), errors.Is(err, fs.ErrPermission):
			continue // execvp goes on to the next folder
		case err != nil:
			return ""
		}
		if coveredBy(real, ms) {
			continue
		}
		fi, err := os.Stat(real)
		if err != nil || !fi.Mode().IsRegular() || unix.Access(real, unix.X_OK) != nil {
			continue
		}
		return p
	}
	return ""
}

// coveredBy tells whether the real path p is masked: a masked file, or inside a
// masked folder.
func coveredBy(p string, ms []mask) bool {
	for _, m := range ms {
		if p == m.path || m.dir && beneath(p, m.path) {
			return true
		}
	}
	return false
}
