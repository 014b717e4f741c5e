package k8s

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"

	"github.com/gantry-dev/gantry/internal/llm/fakellm"
	"github.com/gantry-dev/gantry/internal/testenv"
)

// TestTaskInAPodLikeJobYAML runs one task in the pod that job.yaml describes, made with
// bubblewrap instead of a cluster: uid 1000, a read-only root (the host's /usr and /etc
// on an empty one), and nothing writable but the Job's own volumes, each mounted where
// job.yaml says, the ConfigMaps from script.yaml and a task; the command and the
// environment are job.yaml's. The task must run to its end and leave its results: the
// manifest gives the script and gantry all they write to.
func TestTaskInAPodLikeJobYAML(t *testing.T) {
	bwrap := testenv.Need(t, "bwrap")
	m := loadManifests(t)
	job := one[*batchv1.Job](t, m, "job.yaml")
	c := container(t, job)
	script := one[*corev1.ConfigMap](t, m, "script.yaml")
	tasks := one[*corev1.ConfigMap](t, m, "tasks.yaml")

	srv := fakellm.New(
		fakellm.Turn{Parts: []fakellm.Part{fakellm.ToolCall("c1", "bash", `{"command":"echo hello > hello.txt && cat hello.txt"}`)}},
		fakellm.Turn{Parts: []fakellm.Part{fakellm.Text("Wrote hello.txt.")}},
	)
	defer srv.Close()

	root := t.TempDir()
	args := []string{"--unshare-user", "--uid", "1000", "--gid", "1000", "--unshare-pid", "--die-with-parent",
		"--ro-bind", "/usr", "/usr", "--ro-bind", "/etc", "/etc", "--dev", "/dev", "--proc", "/proc"}
	for _, l := range []string{"bin", "lib", "lib64", "sbin"} {
		if target, err := os.Readlink("/" + l); err == nil {
			args = append(args, "--symlink", target, "/"+l)
		}
	}
	// gantry, on PATH (the host's /usr is read-only here).
	args = append(args, "--ro-bind", filepath.Join(gantryBin(t), "gantry"), "/gantry/bin/gantry")
	// The volumes, each where the container mounts it.
	volumes := map[string]corev1.Volume{}
	for _, v := range job.Spec.Template.Spec.Volumes {
		volumes[v.Name] = v
	}
	host := map[string]string{} // mount path → host folder
	for _, vm := range c.VolumeMounts {
		v := volumes[vm.Name]
		dir := filepath.Join(root, "volumes", vm.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		host[vm.MountPath] = dir
		switch {
		case v.ConfigMap != nil && v.ConfigMap.Name == script.Name:
			writeData(t, dir, script.Data)
		case v.ConfigMap != nil && v.ConfigMap.Name == tasks.Name:
			// One task, written as the ConfigMap's keys are, at index 0.
			writeData(t, dir, map[string]string{"0.prompt": "Say hello in hello.txt.\n"})
		case v.EmptyDir == nil && v.PersistentVolumeClaim == nil:
			t.Fatalf("volume %s is of a kind this test does not make", vm.Name)
		}
		bind := "--bind"
		if vm.ReadOnly {
			bind = "--ro-bind"
		}
		args = append(args, bind, dir, vm.MountPath)
	}
	termlog := filepath.Join(root, "termination-log")
	if err := os.WriteFile(termlog, nil, 0o666); err != nil {
		t.Fatal(err)
	}
	args = append(args, "--bind", termlog, c.TerminationMessagePath, "--remount-ro", "/", "--clearenv")
	for _, e := range c.Env {
		if e.ValueFrom == nil {
			args = append(args, "--setenv", e.Name, e.Value)
		}
	}
	// GANTRY_DOCTOR: what gantry's sandbox is in such a pod (the host's kernel and
	// runtime decide), on stderr.
	args = append(args, "--setenv", "GANTRY_DOCTOR", "1", "--setenv", "JOB_COMPLETION_INDEX", "0", "--setenv", "ANTHROPIC_API_KEY", "test-key",
		"--setenv", "ANTHROPIC_BASE_URL", srv.URL(), "--setenv", "PATH", "/gantry/bin:/usr/local/bin:/usr/bin:/bin", "--chdir", "/", "--")

	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	inPod := func(argv ...string) (stdout, stderr bytes.Buffer, err error) {
		cmd := exec.CommandContext(ctx, bwrap, append(slices.Clip(args), argv...)...)
		killGroupOnCancel(cmd)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err = cmd.Run()
		return stdout, stderr, err
	}
	stdout, stderr, err := inPod(c.Command...)
	if err != nil {
		t.Fatalf("the task in its pod: %v\nstderr:\n%s\nstdout:\n%s", err, stderr.String(), stdout.String())
	}

	doctor := false
	for line := range strings.Lines(stderr.String()) {
		if strings.HasPrefix(line, "gantry doctor: ") && strings.Contains(line, "sandbox") {
			t.Log(strings.TrimSpace(line))
			doctor = true
		}
	}
	if !doctor {
		t.Errorf("GANTRY_DOCTOR=1: no sandbox line from gantry doctor on stderr:\n%s", stderr.String())
	}
	results := host[envValue(c, "GANTRY_RESULTS_DIR")]
	summaryLine, err := os.ReadFile(filepath.Join(results, "0.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(summaryLine), `"exit_code":0,`) || !strings.Contains(string(summaryLine), `"subtype":"success"`) {
		t.Errorf("summary %s", summaryLine)
	}
	if term, _ := os.ReadFile(termlog); !bytes.Equal(term, summaryLine) {
		t.Errorf("termination message %q, summary %q", term, summaryLine)
	}
	if stream, _ := os.ReadFile(filepath.Join(results, "0.jsonl")); !bytes.Equal(stream, stdout.Bytes()) {
		t.Errorf("the stream file is not stdout")
	}
	if got, _ := os.ReadFile(filepath.Join(host[envValue(c, "GANTRY_WORK_DIR")], "0", "hello.txt")); string(got) != "hello\n" {
		t.Errorf("hello.txt is %q\nstderr:\n%s", got, stderr.String())
	}
	// job.yaml's --session-dir keeps each task's session store beside its results.
	if _, err := os.Stat(filepath.Join(results, "sessions", "0", "sessions.db")); err != nil {
		t.Errorf("the task's session store is not in the results volume: %v", err)
	}
}

// writeData lays a ConfigMap's data out as files in dir, as the kubelet mounts it.
func writeData(t *testing.T, dir string, data map[string]string) {
	t.Helper()
	for k, v := range data {
		if err := os.WriteFile(filepath.Join(dir, k), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func envValue(c corev1.Container, name string) string {
	for _, e := range c.Env {
		if e.Name == name {
			return e.Value
		}
	}
	return ""
}
