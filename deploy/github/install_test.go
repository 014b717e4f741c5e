package github

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gantry-dev/gantry/internal/testenv"
)

// fakeReleases serves one release of gantry-dev/gantry, v9.9.9, as GitHub serves a
// release's assets: the binary for linux/amd64 and SHA256SUMS, which lists sum for it.
func fakeReleases(t *testing.T, binary []byte, sum string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/gantry-dev/gantry/releases/download/v9.9.9/gantry-linux-amd64":
			_, _ = w.Write(binary)
		case "/gantry-dev/gantry/releases/download/v9.9.9/SHA256SUMS":
			_, _ = w.Write([]byte("0000  gantry-darwin-arm64\n" + sum + "  gantry-linux-amd64\n"))
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// download runs install.sh download as the action's download step does, for a
// linux/amd64 runner and the given version, and returns its exit code, stderr and
// outputs.
func download(t *testing.T, server, version string) (int, string, map[string]string) {
	t.Helper()
	testenv.Need(t, "curl")
	tmp := t.TempDir()
	out := filepath.Join(tmp, "output")
	a := loadAction(t)
	w := workflow{github: map[string]string{"action_repository": "gantry-dev/gantry", "action_ref": "main"}}
	env := append(os.Environ(), "GITHUB_OUTPUT="+out, "RUNNER_TEMP="+tmp, "GITHUB_SERVER_URL="+server,
		"RUNNER_OS=Linux", "RUNNER_ARCH=X64")
	env = append(env, a.stepEnv(t, a.stepRunning(t, "install.sh"), map[string]string{"version": version}, w)...)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "install.sh", "download")
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("running install.sh: %v", err)
	}
	outputs, err := readOutputs(out)
	if err != nil {
		t.Fatal(err)
	}
	return code, stderr.String(), outputs
}

// The download step fetches the release's binary and checks it against SHA256SUMS;
// a binary whose sum differs fails the step and is not left behind; a release that
// does not exist sends the action to its build steps.
func TestInstallDownloadsAndChecksTheRelease(t *testing.T) {
	bin, err := os.ReadFile(gantryBin)
	if err != nil {
		t.Fatal(err)
	}
	h := sha256.Sum256(bin)
	good := fakeReleases(t, bin, hex.EncodeToString(h[:]))

	code, stderr, outputs := download(t, good.URL, "v9.9.9")
	if code != 0 || outputs["need_build"] != "false" || outputs["path"] == "" {
		t.Fatalf("exit %d, outputs %v\n%s", code, outputs, stderr)
	}
	if v, err := exec.Command(outputs["path"], "version").CombinedOutput(); err != nil || !strings.Contains(string(v), "gantry") {
		t.Errorf("the downloaded gantry does not run: %v %s", err, v)
	}

	bad := fakeReleases(t, bin, strings.Repeat("ab", 32))
	code, stderr, outputs = download(t, bad.URL, "v9.9.9")
	if code == 0 || !strings.Contains(stderr, "::error::gantry-linux-amd64 of v9.9.9 has SHA-256 "+hex.EncodeToString(h[:])+", but SHA256SUMS says abab") {
		t.Errorf("a wrong sum: exit %d\n%s", code, stderr)
	}
	if outputs["path"] != "" {
		t.Errorf("a wrong sum gave a path: %v", outputs)
	}

	code, stderr, outputs = download(t, good.URL, "v0.0.1")
	if code != 0 || outputs["need_build"] != "true" || outputs["path"] != "" {
		t.Errorf("no such release: exit %d, outputs %v\n%s", code, outputs, stderr)
	}
}
