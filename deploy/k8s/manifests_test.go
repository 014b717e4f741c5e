package k8s

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	kjson "k8s.io/apimachinery/pkg/runtime/serializer/json"
	"k8s.io/apimachinery/pkg/util/yaml"
)

var update = flag.Bool("update", false, "rewrite script.yaml from task.sh")

// decoder decodes manifests as the API server does with strict field validation:
// unknown and duplicate fields are errors, field names match exactly.
func decoder(t testing.TB) *kjson.Serializer {
	t.Helper()
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{corev1.AddToScheme, batchv1.AddToScheme} {
		if err := add(scheme); err != nil {
			t.Fatal(err)
		}
	}
	return kjson.NewSerializerWithOptions(kjson.DefaultMetaFactory, scheme, scheme, kjson.SerializerOptions{Yaml: true, Strict: true})
}

// decodeAll decodes every document of a YAML file into its API type.
func decodeAll(dec *kjson.Serializer, data []byte) ([]runtime.Object, error) {
	r := yaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var objs []runtime.Object
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return objs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) == 0 {
			continue
		}
		obj, _, err := dec.Decode(doc, nil, nil)
		if err != nil {
			return nil, err
		}
		objs = append(objs, obj)
	}
}

// stripComments drops the lines that are only a comment, to tell an empty document.
func stripComments(doc []byte) []byte {
	var out []byte
	for line := range bytes.Lines(doc) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line...)
		}
	}
	return out
}

// kustomization is the part of kustomize's Kustomization these manifests use; any other
// field is an error.
type kustomization struct {
	APIVersion string   `json:"apiVersion"`
	Kind       string   `json:"kind"`
	Resources  []string `json:"resources"`
	Patches    []struct {
		Path string `json:"path"`
	} `json:"patches"`
	Images []struct {
		Name    string `json:"name"`
		NewName string `json:"newName"`
		NewTag  string `json:"newTag"`
	} `json:"images"`
}

func decodeKustomization(data []byte) (kustomization, error) {
	var k kustomization
	j, err := yaml.ToJSON(data)
	if err != nil {
		return k, err
	}
	d := json.NewDecoder(bytes.NewReader(j))
	d.DisallowUnknownFields()
	if err := d.Decode(&k); err != nil {
		return k, err
	}
	if k.APIVersion != "kustomize.config.k8s.io/v1beta1" || k.Kind != "Kustomization" {
		return k, fmt.Errorf("apiVersion %q kind %q, want kustomize.config.k8s.io/v1beta1 Kustomization", k.APIVersion, k.Kind)
	}
	return k, nil
}

// manifests are every manifest of deploy/k8s, decoded, by path relative to it.
type manifests struct {
	objects        map[string][]runtime.Object
	kustomizations map[string]kustomization
}

func loadManifests(t *testing.T) manifests {
	t.Helper()
	dec := decoder(t)
	m := manifests{objects: map[string][]runtime.Object{}, kustomizations: map[string]kustomization{}}
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
			return err
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if filepath.Base(path) == "kustomization.yaml" {
			k, err := decodeKustomization(data)
			if err != nil {
				return fmt.Errorf("%s: %w", path, err)
			}
			m.kustomizations[path] = k
			return nil
		}
		objs, err := decodeAll(dec, data)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if len(objs) == 0 {
			return fmt.Errorf("%s holds no object", path)
		}
		m.objects[path] = objs
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func one[T runtime.Object](t *testing.T, m manifests, path string) T {
	t.Helper()
	objs := m.objects[path]
	if len(objs) != 1 {
		t.Fatalf("%s holds %d objects, want one", path, len(objs))
	}
	o, ok := objs[0].(T)
	if !ok {
		t.Fatalf("%s holds a %T", path, objs[0])
	}
	return o
}

func TestEveryManifestDecodesStrictly(t *testing.T) {
	m := loadManifests(t)
	var paths []string
	for p := range m.objects {
		paths = append(paths, p)
	}
	for p := range m.kustomizations {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	want := []string{"job.yaml", "kustomization.yaml", "sandbox/job-bubblewrap.yaml", "sandbox/kustomization.yaml", "script.yaml", "secret.example.yaml", "tasks.yaml"}
	if !slices.Equal(paths, want) {
		t.Errorf("manifests %v, want %v", paths, want)
	}
	one[*batchv1.Job](t, m, "job.yaml")
	one[*batchv1.Job](t, m, "sandbox/job-bubblewrap.yaml")
	one[*corev1.ConfigMap](t, m, "script.yaml")
	one[*corev1.ConfigMap](t, m, "tasks.yaml")
	one[*corev1.Secret](t, m, "secret.example.yaml")
}

// TestStrictDecodingRefuses shows that the decoding above can fail: a misspelt field, a
// field in the wrong case, a duplicate field, an unknown kind.
func TestStrictDecodingRefuses(t *testing.T) {
	job, err := os.ReadFile("job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := decoder(t)
	if _, err := decodeAll(dec, job); err != nil {
		t.Fatalf("job.yaml: %v", err)
	}
	for name, edit := range map[string]func(string) string{
		"unknown field": func(s string) string {
			return strings.Replace(s, "  completionMode: Indexed", "  completionMode: Indexed\n  completionsPerIndex: 1", 1)
		},
		"wrong case": func(s string) string { return strings.Replace(s, "  parallelism:", "  Parallelism:", 1) },
		"duplicate": func(s string) string {
			return strings.Replace(s, "  parallelism: 3", "  parallelism: 3\n  parallelism: 2", 1)
		},
		"misplaced": func(s string) string {
			return strings.Replace(s, "          imagePullPolicy:", "          runAsUser: 1000\n          imagePullPolicy:", 1)
		},
		"kind": func(s string) string { return strings.Replace(s, "kind: Job", "kind: Jobs", 1) },
	} {
		t.Run(name, func(t *testing.T) {
			bad := edit(string(job))
			if bad == string(job) {
				t.Fatal("the edit changed nothing")
			}
			_, err := decodeAll(dec, []byte(bad))
			if err == nil {
				t.Fatal("decoded without an error")
			}
			if name != "kind" && !runtime.IsStrictDecodingError(err) {
				t.Fatalf("not a strict decoding error: %v", err)
			}
			t.Log(err)
		})
	}
	if _, err := decodeKustomization([]byte("apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresource: [job.yaml]\n")); err == nil {
		t.Error("a kustomization with an unknown field decoded")
	}
}

func TestJobRunsOneTaskPerIndex(t *testing.T) {
	m := loadManifests(t)
	job := one[*batchv1.Job](t, m, "job.yaml")
	s := job.Spec
	if s.CompletionMode == nil || *s.CompletionMode != batchv1.IndexedCompletion {
		t.Errorf("completionMode %v, want Indexed", s.CompletionMode)
	}
	if s.Completions == nil || s.Parallelism == nil || *s.Completions < 1 || *s.Parallelism < 1 || *s.Parallelism > *s.Completions {
		t.Errorf("completions %v, parallelism %v: want both set, 1 ≤ parallelism ≤ completions", s.Completions, s.Parallelism)
	}
	if s.BackoffLimitPerIndex == nil && s.BackoffLimit == nil {
		t.Error("neither backoffLimitPerIndex nor backoffLimit is set")
	}
	if s.TTLSecondsAfterFinished == nil || s.ActiveDeadlineSeconds == nil {
		t.Error("ttlSecondsAfterFinished and activeDeadlineSeconds must be set")
	}
	if s.Template.Spec.RestartPolicy != corev1.RestartPolicyNever {
		t.Errorf("restartPolicy %q: a failed task's pod is retried as a new pod (Never), which podFailurePolicy needs", s.Template.Spec.RestartPolicy)
	}
	c := container(t, job)
	if s.PodFailurePolicy == nil {
		t.Fatal("no podFailurePolicy: the exit statuses a retry cannot change are retried")
	}
	var failIndex []int32
	for _, r := range s.PodFailurePolicy.Rules {
		if r.Action == batchv1.PodFailurePolicyActionFailIndex && r.OnExitCodes != nil {
			if r.OnExitCodes.ContainerName == nil || *r.OnExitCodes.ContainerName != c.Name {
				t.Errorf("a FailIndex rule names container %v, not %q", r.OnExitCodes.ContainerName, c.Name)
			}
			failIndex = append(failIndex, r.OnExitCodes.Values...)
		}
	}
	for _, code := range []int32{2, 3, 6, 7, 66} { // usage, max turns, max cost, max duration, no task
		if !slices.Contains(failIndex, code) {
			t.Errorf("exit status %d does not fail its index at once (FailIndex %v)", code, failIndex)
		}
	}
	if slices.Contains(failIndex, 1) || slices.Contains(failIndex, 75) || slices.Contains(failIndex, 130) {
		t.Errorf("an error, a failed clone or an interruption is not retried: FailIndex %v", failIndex)
	}

	// The tasks: every index has a prompt, and nothing else is in the ConfigMap.
	tasks := one[*corev1.ConfigMap](t, m, "tasks.yaml")
	key := regexp.MustCompile(`^([0-9]+)\.(prompt|repo|ref|flags)$`)
	prompts := 0
	for k := range tasks.Data {
		sub := key.FindStringSubmatch(k)
		if sub == nil {
			t.Errorf("tasks.yaml key %q is not N.prompt, N.repo, N.ref or N.flags", k)
			continue
		}
		if n, _ := strconv.Atoi(sub[1]); s.Completions != nil && n >= int(*s.Completions) {
			t.Errorf("tasks.yaml key %q is beyond the Job's %d completions", k, *s.Completions)
		}
		if sub[2] == "prompt" {
			prompts++
		}
	}
	if s.Completions != nil && prompts != int(*s.Completions) {
		t.Errorf("%d prompts for %d completions", prompts, *s.Completions)
	}
}

// container is the Job's one container.
func container(t *testing.T, job *batchv1.Job) corev1.Container {
	t.Helper()
	cs := job.Spec.Template.Spec.Containers
	if len(cs) != 1 {
		t.Fatalf("%d containers, want one", len(cs))
	}
	return cs[0]
}

func TestJobIsConfinedAndBounded(t *testing.T) {
	m := loadManifests(t)
	job := one[*batchv1.Job](t, m, "job.yaml")
	pod := job.Spec.Template.Spec
	c := container(t, job)
	psc := pod.SecurityContext
	if psc == nil || psc.RunAsNonRoot == nil || !*psc.RunAsNonRoot || psc.RunAsUser == nil || *psc.RunAsUser != 1000 {
		t.Errorf("pod securityContext %+v: want runAsNonRoot and runAsUser 1000 (the image's user)", psc)
	}
	if psc == nil || psc.SeccompProfile == nil || psc.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("the pod's seccomp profile is not RuntimeDefault")
	}
	sc := c.SecurityContext
	if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation {
		t.Error("allowPrivilegeEscalation is not false")
	}
	if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem {
		t.Error("readOnlyRootFilesystem is not true")
	}
	if sc == nil || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
		t.Error("the capabilities are not all dropped")
	}
	if sc != nil && sc.Privileged != nil && *sc.Privileged {
		t.Error("the container is privileged")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod gets a service account token it has no use for")
	}
	for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
		if q, ok := c.Resources.Requests[r]; !ok || q.IsZero() {
			t.Errorf("no %s request", r)
		}
	}
	if q, ok := c.Resources.Limits[corev1.ResourceMemory]; !ok || q.Cmp(c.Resources.Requests[corev1.ResourceMemory]) < 0 {
		t.Error("no memory limit at or above the request")
	}
	if c.Image == "" || c.Name != "gantry" {
		t.Errorf("container %q image %q", c.Name, c.Image)
	}
}

func TestJobGivesTheScriptWhatItReads(t *testing.T) {
	m := loadManifests(t)
	job := one[*batchv1.Job](t, m, "job.yaml")
	pod := job.Spec.Template.Spec
	c := container(t, job)

	env := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		if _, dup := env[e.Name]; dup {
			t.Errorf("env %s twice", e.Name)
		}
		env[e.Name] = e
	}
	secret := one[*corev1.Secret](t, m, "secret.example.yaml")
	key := env["ANTHROPIC_API_KEY"]
	if key.ValueFrom == nil || key.ValueFrom.SecretKeyRef == nil || key.ValueFrom.SecretKeyRef.Name != secret.Name ||
		secret.StringData[key.ValueFrom.SecretKeyRef.Key] == "" {
		t.Errorf("ANTHROPIC_API_KEY %+v does not come from secret.example.yaml's Secret %q", key, secret.Name)
	}
	if key.Value != "" {
		t.Error("ANTHROPIC_API_KEY has a value in the manifest")
	}
	if _, ok := env["JOB_COMPLETION_INDEX"]; ok {
		t.Error("JOB_COMPLETION_INDEX is set by hand; Kubernetes sets it in an Indexed Job")
	}
	if !strings.Contains(env["GANTRY_EXTRA_FLAGS"].Value, "--permission-mode") {
		t.Errorf("GANTRY_EXTRA_FLAGS %q sets no permission mode: print mode has no one to ask", env["GANTRY_EXTRA_FLAGS"].Value)
	}

	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
	}
	mounts := map[string]corev1.VolumeMount{} // by path
	for _, vm := range c.VolumeMounts {
		if _, ok := volumes[vm.Name]; !ok {
			t.Errorf("mount %s: no volume %q", vm.MountPath, vm.Name)
		}
		mounts[vm.MountPath] = vm
	}
	configMap := func(path string) string {
		v := volumes[mounts[path].Name]
		if v.ConfigMap == nil {
			return ""
		}
		return v.ConfigMap.Name
	}
	writable := func(path string) bool {
		vm, ok := mounts[path]
		v := volumes[vm.Name]
		return ok && !vm.ReadOnly && (v.EmptyDir != nil || v.PersistentVolumeClaim != nil)
	}

	// The script runs from the mount of the script's ConfigMap.
	script := one[*corev1.ConfigMap](t, m, "script.yaml")
	if len(c.Command) != 2 || c.Command[0] != "bash" || filepath.Base(c.Command[1]) != "task.sh" {
		t.Fatalf("command %q, want bash …/task.sh", c.Command)
	}
	if got := configMap(filepath.Dir(c.Command[1])); got != script.Name {
		t.Errorf("%s is not mounted from the script's ConfigMap %q (%q)", c.Command[1], script.Name, got)
	}
	// The tasks from theirs; the folders the script and gantry write, writable.
	tasks := one[*corev1.ConfigMap](t, m, "tasks.yaml")
	if got := configMap(env["GANTRY_TASKS_DIR"].Value); got != tasks.Name {
		t.Errorf("GANTRY_TASKS_DIR %q is not mounted from the tasks' ConfigMap %q (%q)", env["GANTRY_TASKS_DIR"].Value, tasks.Name, got)
	}
	for _, name := range []string{"GANTRY_RESULTS_DIR", "GANTRY_WORK_DIR", "HOME", "TMPDIR"} {
		if p := env[name].Value; !writable(p) {
			t.Errorf("%s %q is not a writable volume's mount (the root file system is read-only)", name, p)
		}
	}
	if c.TerminationMessagePath != "/dev/termination-log" || env["GANTRY_TERMINATION_LOG"].Value != "" && env["GANTRY_TERMINATION_LOG"].Value != c.TerminationMessagePath {
		t.Errorf("the termination message is read from %q, which the script does not write", c.TerminationMessagePath)
	}
}

func TestScriptConfigMapIsTaskSh(t *testing.T) {
	script, err := os.ReadFile("task.sh")
	if err != nil {
		t.Fatal(err)
	}
	if *update {
		if err := os.WriteFile("script.yaml", scriptYAML(string(script)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := loadManifests(t)
	cm := one[*corev1.ConfigMap](t, m, "script.yaml")
	if cm.Data["task.sh"] != string(script) || len(cm.Data) != 1 {
		t.Fatal("script.yaml is not task.sh: run go test ./deploy/k8s -run TestScriptConfigMapIsTaskSh -update")
	}
	if !bytes.HasPrefix(script, []byte("#!/usr/bin/env bash\n")) {
		t.Error("task.sh does not start with its bash line")
	}
	if out, err := exec.Command("bash", "-n", "task.sh").CombinedOutput(); err != nil {
		t.Errorf("bash -n task.sh: %v\n%s", err, out)
	}
	if out, err := exec.Command("bash", "-n", "collect.sh").CombinedOutput(); err != nil {
		t.Errorf("bash -n collect.sh: %v\n%s", err, out)
	}
}

// scriptYAML is script.yaml: the ConfigMap holding task.sh as it is.
func scriptYAML(script string) []byte {
	var b strings.Builder
	b.WriteString("# task.sh, the entry script of job.yaml, as a ConfigMap. Made from task.sh by\n")
	b.WriteString("#   go test ./deploy/k8s -run TestScriptConfigMapIsTaskSh -update\n")
	b.WriteString("# (the test fails while the two differ); edit task.sh, not this file.\n")
	b.WriteString("apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: gantry-task-script\n  labels:\n    app.kubernetes.io/name: gantry\ndata:\n  task.sh: |\n")
	for line := range strings.Lines(script) {
		if strings.TrimSpace(line) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("    " + line)
	}
	return []byte(b.String())
}

func TestKustomizationsNameTheManifests(t *testing.T) {
	m := loadManifests(t)
	k := m.kustomizations["kustomization.yaml"]
	if !slices.Equal(slices.Sorted(slices.Values(k.Resources)), []string{"job.yaml", "script.yaml", "tasks.yaml"}) {
		t.Errorf("kustomization.yaml resources %v, want the Job and its two ConfigMaps (the Secret is made by hand)", k.Resources)
	}
	job := one[*batchv1.Job](t, m, "job.yaml")
	if len(k.Images) != 1 || k.Images[0].Name != container(t, job).Image[:strings.IndexByte(container(t, job).Image+":", ':')] {
		t.Errorf("kustomization.yaml images %+v do not name the Job's image %q", k.Images, container(t, job).Image)
	}
	sb := m.kustomizations["sandbox/kustomization.yaml"]
	if !slices.Equal(sb.Resources, []string{".."}) || len(sb.Patches) != 1 {
		t.Fatalf("sandbox/kustomization.yaml %+v: want resources [..] and one patch", sb)
	}
	patch := one[*batchv1.Job](t, m, filepath.Join("sandbox", sb.Patches[0].Path))
	if patch.Name != job.Name || len(patch.Spec.Template.Spec.Containers) != 1 || patch.Spec.Template.Spec.Containers[0].Name != container(t, job).Name {
		t.Fatalf("the sandbox patch does not name the Job %q and its container", job.Name)
	}
	ps := patch.Spec.Template.Spec
	if ps.HostUsers == nil || *ps.HostUsers {
		t.Error("the sandbox patch does not give the pod its own user namespace (hostUsers: false)")
	}
	if sc := ps.Containers[0].SecurityContext; sc == nil || sc.ProcMount == nil || *sc.ProcMount != corev1.UnmaskedProcMount {
		t.Error("the sandbox patch does not unmask /proc, where bubblewrap mounts a new one")
	}
	if ps.SecurityContext == nil || ps.SecurityContext.SeccompProfile == nil || ps.SecurityContext.SeccompProfile.Type == corev1.SeccompProfileTypeRuntimeDefault {
		t.Error("the sandbox patch keeps the runtime's seccomp profile, which forbids user namespaces")
	}
}

// TestNotLinkedIntoGantry: the Kubernetes modules are for these tests only.
func TestNotLinkedIntoGantry(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", "../../cmd/gantry").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	for p := range strings.Lines(string(out)) {
		if strings.HasPrefix(p, "k8s.io/") || strings.HasPrefix(p, "sigs.k8s.io/") || strings.Contains(p, "/deploy/k8s") {
			t.Errorf("gantry depends on %s", strings.TrimSpace(p))
		}
	}
}
