package deploy_test

import (
	"archive/tar"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// TestImage builds gantry's image with deploy/image.sh (the root file system from
// Debian's packages by mmdebstrap, then podman build), runs gantry -p inside it
// against the fake model as the image's non-root user, with a project folder mounted
// and the bash tool in bubblewrap's sandbox, asks doctor what is in force inside,
// and saves the image as an OCI archive. The image is removed at the end; the root
// file system tarball stays in deploy/.cache for the next build.
func TestImage(t *testing.T) {
	testenv.Need(t, "podman")
	testenv.Need(t, "mmdebstrap")
	testenv.Need(t, "bash")
	testenv.Need(t, "gcc") // the README's install command links gantry statically through cgo
	image := "localhost/gantry-test:" + strconv.Itoa(os.Getpid())
	env := append(os.Environ(), "GANTRY_IMAGE="+image)

	start := time.Now()
	script(t, 15*time.Minute, env, "build")
	t.Logf("deploy/image.sh build: %v", time.Since(start).Round(time.Millisecond))
	t.Cleanup(func() {
		if out, err := command(2*time.Minute, nil, "podman", "rmi", "--force", image); err != nil {
			t.Errorf("removing the image %s: %v\n%s", image, err, out)
		}
	})
	flags := strings.Fields(script(t, time.Minute, env, "flags"))
	t.Logf("podman run flags here: %s", strings.Join(flags, " "))
	if size, err := command(time.Minute, nil, "podman", "image", "inspect", "--format", "{{.Size}}", image); err == nil {
		t.Logf("image size (uncompressed): %s bytes", strings.TrimSpace(size))
	}

	t.Run("PrintMode", func(t *testing.T) { printMode(t, image, flags) })
	t.Run("Doctor", func(t *testing.T) { doctor(t, image, flags) })
	t.Run("StartUp", func(t *testing.T) { startUp(t, image, flags) })
	t.Run("Save", func(t *testing.T) {
		archive := filepath.Join(t.TempDir(), "gantry.oci.tar")
		script(t, 5*time.Minute, env, "save", archive)
		checkOCIArchive(t, archive)
	})
}

// printMode runs gantry -p in the image over a mounted project: the model reads a
// file, edits it, and runs bash, whose output shows the user, HOME and git.
func printMode(t *testing.T, image string, flags []string) {
	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Reading it."), fakellm.ToolCall("c1", "read_file", `{"path":"hello.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("c2", "edit_file", `{"path":"hello.txt","edits":[{"old":"from the host","new":"from the container"}]}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("c3", "bash", `{"command":"id -un; id -u; echo \"home=$HOME\"; git --version; cat hello.txt; if touch \"$HOME/outside\" 2>/dev/null; then echo home:writable; else echo home:read-only; fi"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Edited inside the container.")}},
	)
	defer srv.Close()
	project := projectDir(t, map[string]string{"hello.txt": "hello from the host\n"})

	out, err := inImage(3*time.Minute, podmanRun(flags, project, srv.URL(),
		image, "-p", "change the greeting", "--permission-mode", "yolo"))
	if err != nil {
		t.Fatalf("gantry -p in the image: %v\n%s", err, out)
	}
	if !strings.Contains(out, "Edited inside the container.") {
		t.Errorf("the answer is not in the output:\n%s", out)
	}
	got, err := os.ReadFile(filepath.Join(project, "hello.txt"))
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != "hello from the container\n" {
		t.Errorf("the mounted project's file holds %q, want the edit", got)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4:\n%s", len(reqs), out)
	}
	// The bash call's result, as the model got it (JSON-encoded newlines): the image's
	// user gantry, uid 1000, its HOME, git, the edited file, and HOME read-only to the
	// command (yolo mode runs it in the sandbox, which Doctor finds is bubblewrap's).
	result := string(reqs[3].Raw)
	if i := strings.Index(result, `"tool_use_id":"c3"`); i >= 0 {
		result = result[i:min(len(result), i+400)]
	}
	for _, want := range []string{`gantry\n1000\nhome=/home/gantry\ngit version 2.`, `hello from the container\nhome:read-only`} {
		if !strings.Contains(result, want) {
			t.Errorf("the bash call's result lacks %q:\n%s", want, result)
		}
	}
}

// doctor asks gantry doctor what is in force in the image: with the flags of
// image.sh, bubblewrap's sandbox; without the one that lets it mount a /proc, the
// fallback, saying that the container's runtime is the cause and which flag fixes it.
func doctor(t *testing.T, image string, flags []string) {
	project := projectDir(t, nil)
	out, err := inImage(2*time.Minute, podmanRun(flags, project, "", image, "doctor"))
	if err != nil {
		t.Fatalf("gantry doctor in the image: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^  sandbox +bubblewrap;`),
		regexp.MustCompile(`(?m)^  exec supervisor +available`),
		regexp.MustCompile(`(?m)^  PID namespaces +a user and PID namespace per command`),
		regexp.MustCompile(`(?m)^  user config +/home/gantry/\.config/gantry `),
	} {
		if !want.MatchString(out) {
			t.Errorf("doctor's output does not match %s:\n%s", want, out)
		}
	}

	masked := slices.DeleteFunc(slices.Clone(flags), func(f string) bool { return strings.HasPrefix(f, "--security-opt=unmask=") })
	out, err = inImage(2*time.Minute, podmanRun(masked, project, "", image, "doctor"))
	if err != nil {
		t.Fatalf("gantry doctor in the image without unmask: %v\n%s", err, out)
	}
	line := regexp.MustCompile(`(?m)^! sandbox .*$`).FindString(out)
	if !strings.Contains(line, "bubblewrap cannot make its namespaces here") ||
		!strings.Contains(line, "gantry runs in a container") || !strings.Contains(line, "--security-opt unmask=/proc/*") {
		t.Errorf("without unmask, doctor's sandbox line does not say that the container is the cause, and its fix:\n%s", out)
	}
}

// startUp logs how long gantry takes to send its first request to the model, from
// the start of the command, in the image (podman run included) and on this machine
// (the image's own binary), alternated. It logs, and asserts nothing of the times.
func startUp(t *testing.T, image string, flags []string) {
	host := filepath.Join(t.TempDir(), "gantry")
	var bin, stderr bytes.Buffer
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cp := exec.CommandContext(ctx, "podman", append(append([]string{"run", "--rm", "--entrypoint", "cat"}, flags...), image, "/usr/local/bin/gantry")...)
	cp.Stdout, cp.Stderr = &bin, &stderr
	if err := cp.Run(); err != nil {
		t.Fatalf("copying the image's gantry out: %v\n%s", err, stderr.String())
	}
	if err := os.WriteFile(host, bin.Bytes(), 0o755); err != nil {
		t.Fatal(err)
	}
	project := projectDir(t, nil)
	home := t.TempDir()
	var container, onHost []time.Duration
	for range 3 {
		container = append(container, firstRequest(t, func(url string) (string, error) {
			return inImage(2*time.Minute, podmanRun(flags, project, url, image, "-p", "hi"))
		}))
		onHost = append(onHost, firstRequest(t, func(url string) (string, error) {
			env := []string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "NO_COLOR=1", "ANTHROPIC_API_KEY=k", "ANTHROPIC_BASE_URL=" + url}
			return commandIn(project, 2*time.Minute, env, host, "-p", "hi")
		}))
	}
	t.Logf("time to the model's first request: in the image %v, on this machine %v", container, onHost)
}

// firstRequest runs run(url) against a fake model at url answering one text, and
// returns the time from its start to the model's first request.
func firstRequest(t *testing.T, run func(url string) (string, error)) time.Duration {
	var first atomic.Int64
	var once sync.Once
	srv := fakellm.NewFunc(func(fakellm.Recorded) fakellm.Turn {
		once.Do(func() { first.Store(time.Now().UnixNano()) })
		return fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("hello")}}
	})
	defer srv.Close()
	start := time.Now()
	out, err := run(srv.URL())
	if err != nil || !strings.Contains(out, "hello") {
		t.Fatalf("gantry -p hi: %v\n%s", err, out)
	}
	return time.Unix(0, first.Load()).Sub(start).Round(100 * time.Microsecond)
}

// podmanRun is podman run's arguments for gantry in image with args: the machine's
// flags, the project mounted at /work, the host's network (the fake model listens on
// its loopback) and the model's base URL when there is one.
func podmanRun(flags []string, project, url, image string, args ...string) []string {
	name := fmt.Sprintf("--name=gantry-test-%d-%d", os.Getpid(), containers.Add(1))
	a := append([]string{"run", "--rm", name, "--network=host", "--env=NO_COLOR=1"}, flags...)
	a = append(a, "--volume="+project+":/work")
	if url != "" {
		a = append(a, "--env=ANTHROPIC_BASE_URL="+url, "--env=ANTHROPIC_API_KEY=test-key")
	}
	return append(append(a, image), args...)
}

// containers numbers the containers the test runs, for their names.
var containers atomic.Int64

// inImage runs podman with podmanRun's arguments args for bound at most, and returns
// what it printed; the container a failed or timed-out run leaves behind is removed.
func inImage(bound time.Duration, args []string) (string, error) {
	out, err := command(bound, nil, "podman", args...)
	if err == nil {
		return out, nil
	}
	for _, a := range args {
		if name, ok := strings.CutPrefix(a, "--name="); ok {
			if rm, rmErr := command(time.Minute, nil, "podman", "rm", "--force", "--ignore", name); rmErr != nil {
				err = fmt.Errorf("%w; removing its container %s: %v %s", err, name, rmErr, rm)
			}
		}
	}
	return out, err
}

// projectDir is a temporary project folder with files, writable by the image's user
// (uid 1000): run as root, the folder is given to it; rootless podman maps the
// caller to it (image.sh's flags).
func projectDir(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if os.Geteuid() == 0 {
		err := filepath.WalkDir(dir, func(p string, _ os.DirEntry, err error) error {
			if err != nil {
				return err
			}
			return os.Lchown(p, 1000, 1000)
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// checkOCIArchive checks that archive is an OCI image layout (oci-layout, index.json
// and blobs) and logs its size.
func checkOCIArchive(t *testing.T, archive string) {
	f, err := os.Open(archive)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("OCI archive: %d bytes", st.Size())
	seen := map[string]bool{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("reading %s: %v", archive, err)
		}
		name := strings.TrimPrefix(h.Name, "./")
		if strings.HasPrefix(name, "blobs/sha256/") {
			name = "blobs"
		}
		seen[name] = true
	}
	for _, want := range []string{"oci-layout", "index.json", "blobs"} {
		if !seen[want] {
			t.Errorf("the archive has no %s (it has %v)", want, seen)
		}
	}
}

// script runs deploy/image.sh with args and returns its standard output; a failure
// ends the test with everything it printed.
func script(t *testing.T, bound time.Duration, env []string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", append([]string{"image.sh"}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("deploy/image.sh %s: %v\n%s%s", strings.Join(args, " "), err, stdout.String(), stderr.String())
	}
	return stdout.String()
}

// command runs name with args for bound at most, with env (nil: the test's), and
// returns its standard output and error together.
func command(bound time.Duration, env []string, name string, args ...string) (string, error) {
	return commandIn("", bound, env, name, args...)
}

// commandIn is command run in the folder dir.
func commandIn(dir string, bound time.Duration, env []string, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), bound)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Dir, cmd.Env = dir, env
	cmd.WaitDelay = 5 * time.Second
	out, err := cmd.CombinedOutput()
	return string(out), err
}
