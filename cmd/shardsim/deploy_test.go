package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"
)

// job is the part of a Kubernetes Job that the deploy manifests must get right.
type job struct {
	Kind     string
	Metadata struct{ Name string }
	Spec     struct {
		CompletionMode       string `yaml:"completionMode"`
		Completions          int
		Parallelism          int
		BackoffLimitPerIndex *int `yaml:"backoffLimitPerIndex"`
		PodFailurePolicy     struct {
			Rules []struct {
				Action      string
				OnExitCodes *struct {
					Operator string
					Values   []int
				} `yaml:"onExitCodes"`
				OnPodConditions []struct{ Type string } `yaml:"onPodConditions"`
			}
		} `yaml:"podFailurePolicy"`
		Template struct {
			Spec struct {
				RestartPolicy   string `yaml:"restartPolicy"`
				SecurityContext struct {
					RunAsNonRoot *bool `yaml:"runAsNonRoot"`
					RunAsUser    *int  `yaml:"runAsUser"`
				} `yaml:"securityContext"`
				Volumes []struct {
					PersistentVolumeClaim struct {
						ClaimName string `yaml:"claimName"`
					} `yaml:"persistentVolumeClaim"`
				}
				InitContainers []container `yaml:"initContainers"`
				Containers     []container
			}
		}
	}
}

type container struct {
	Command         []string
	ImagePullPolicy string `yaml:"imagePullPolicy"`
	SecurityContext struct {
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

func readJob(t *testing.T, path string) *job {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var j job
	if err := yaml.Unmarshal(b, &j); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	if j.Kind != "Job" || j.Spec.Template.Spec.RestartPolicy != "Never" {
		t.Errorf("%s: kind %q, restartPolicy %q; want a Job that does not restart its pods in place", path, j.Kind, j.Spec.Template.Spec.RestartPolicy)
	}
	// Local images are used (a pull of shardsim:latest always fails where it was built on
	// the node), and nothing runs as root (restricted namespaces, root-squashed NFS).
	pod := j.Spec.Template.Spec
	if sc := pod.SecurityContext; sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot || sc.RunAsUser == nil || *sc.RunAsUser == 0 {
		t.Errorf("%s: want the pod's securityContext to run as a non-root user (runAsNonRoot, runAsUser not 0)", path)
	}
	for _, c := range append(pod.InitContainers, pod.Containers...) {
		if c.ImagePullPolicy != "IfNotPresent" {
			t.Errorf("%s: %q has imagePullPolicy %q, want IfNotPresent", path, c.Command, c.ImagePullPolicy)
		}
		if e := c.SecurityContext.AllowPrivilegeEscalation; e == nil || *e {
			t.Errorf("%s: %q may escalate its privileges", path, c.Command)
		}
	}
	return &j
}

// flagValue returns the value after flag in args ("" when absent).
func flagValue(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// withOut replaces the -o value of a shardsim command line by dir.
func withOut(args []string, dir string) []string {
	out := slices.Clone(args)
	out[slices.Index(out, "-o")+1] = dir
	return out
}

// The Kubernetes manifests under deploy/kubernetes: an Indexed Job whose workers' count
// (--shards) is its completions, whose init step plans the same sweep the workers run,
// and a merge of the same directory on the same volume. The commands are run: the plan
// for real, and the last index's worker.
func TestKubernetesManifests(t *testing.T) {
	sw := readJob(t, "../../deploy/kubernetes/sweep-job.yaml")
	merge := readJob(t, "../../deploy/kubernetes/merge-job.yaml")
	s := sw.Spec
	if s.CompletionMode != "Indexed" || s.Completions < 1 || s.Parallelism < 1 || s.Parallelism > s.Completions || s.BackoffLimitPerIndex == nil {
		t.Errorf("sweep job: completionMode %q, completions %d, parallelism %d, backoffLimitPerIndex set %v; want Indexed, 1 <= parallelism <= completions, a retry per index",
			s.CompletionMode, s.Completions, s.Parallelism, s.BackoffLimitPerIndex != nil)
	}
	pod := s.Template.Spec
	if len(pod.InitContainers) != 1 || len(pod.Containers) != 1 || len(merge.Spec.Template.Spec.Containers) != 1 {
		t.Fatal("want one init container (the plan) and one worker in the sweep job, one container in the merge job")
	}
	plan, work, mg := pod.InitContainers[0].Command, pod.Containers[0].Command, merge.Spec.Template.Spec.Containers[0].Command
	if plan[0] != "shardsim" || work[0] != "shardsim" || mg[0] != "shardsim" {
		t.Fatalf("commands %q, %q, %q: want shardsim", plan, work, mg)
	}
	if n, _ := strconv.Atoi(flagValue(work, "--shards")); n != s.Completions || flagValue(work, "--shard") != "auto" || !slices.Contains(work, "--resume") || !slices.Contains(work, "--claim") {
		t.Errorf("worker %q: want --shard auto --shards %d (the completions) --resume --claim", work, s.Completions)
	}
	// A bad command line fails its index at once (exit status 2); an evicted pod's retry
	// does not count.
	var failIndex, ignoreDisruption bool
	for _, r := range s.PodFailurePolicy.Rules {
		if r.Action == "FailIndex" && r.OnExitCodes != nil && r.OnExitCodes.Operator == "In" && slices.Contains(r.OnExitCodes.Values, 2) {
			failIndex = true
		}
		if r.Action == "Ignore" && len(r.OnPodConditions) == 1 && r.OnPodConditions[0].Type == "DisruptionTarget" {
			ignoreDisruption = true
		}
	}
	if !failIndex || !ignoreDisruption {
		t.Errorf("sweep job: podFailurePolicy fails an index on exit status 2: %v, ignores disruptions: %v; want both", failIndex, ignoreDisruption)
	}
	// The worker's command is the plan's with --plan replaced by the worker's own flags.
	common := func(args []string) []string {
		var out []string
		for i := 1; i < len(args); i++ {
			switch args[i] {
			case "--plan", "--resume", "--claim", "-q":
			case "--shard", "--shards", "-j":
				i++
			default:
				out = append(out, args[i])
			}
		}
		return out
	}
	if !slices.Equal(common(plan), common(work)) || !slices.Contains(plan, "--plan") {
		t.Errorf("the init step %q does not plan the sweep the worker %q runs", plan, work)
	}
	dir := flagValue(work, "-o")
	if len(mg) != 3 || mg[1] != "merge" || mg[2] != dir {
		t.Errorf("merge %q: want shardsim merge %s", mg, dir)
	}
	for _, j := range []*job{sw, merge} {
		p := j.Spec.Template.Spec
		if len(p.Volumes) != 1 || p.Volumes[0].PersistentVolumeClaim.ClaimName != "shardsim-work" {
			t.Errorf("%s: want the one volume shardsim-work", j.Metadata.Name)
		}
		for _, c := range append(p.InitContainers, p.Containers...) {
			if len(c.VolumeMounts) != 1 || !strings.HasPrefix(dir, c.VolumeMounts[0].MountPath+"/") {
				t.Errorf("%s: %q does not mount the volume that holds %s", j.Metadata.Name, c.Command, dir)
			}
		}
	}

	tmp := filepath.Join(t.TempDir(), "work")
	var out, errb bytes.Buffer
	if code := Main(withOut(plan[1:], tmp), &out, &errb); code != 0 {
		t.Fatalf("%q: exit %d: %s", plan, code, errb.String())
	}
	m := regexp.MustCompile(`(\d+) work items`).FindStringSubmatch(out.String())
	if m == nil {
		t.Fatalf("plan said %q", out.String())
	}
	items, _ := strconv.Atoi(m[1])
	if items < s.Completions {
		t.Errorf("%d items for %d workers: some would have nothing to do", items, s.Completions)
	}
	t.Setenv("JOB_COMPLETION_INDEX", strconv.Itoa(s.Completions-1))
	out.Reset()
	// Without --claim, which would make this lone worker run every item: it runs the
	// items the static plan it writes gives its index.
	static := slices.DeleteFunc(withOut(work[1:], tmp), func(a string) bool { return a == "--claim" })
	if code := Main(static, &out, &errb); code != 0 {
		t.Fatalf("%q: exit %d: %s", static, code, errb.String())
	}
	var layout struct {
		Workers int
		Owner   []int
	}
	if b, err := os.ReadFile(filepath.Join(tmp, "workers.json")); err != nil || json.Unmarshal(b, &layout) != nil || layout.Workers != s.Completions || len(layout.Owner) != items {
		t.Fatalf("workers.json (%v): want a plan of %d items over %d workers", err, items, s.Completions)
	}
	want := 0
	for _, k := range layout.Owner {
		if k == s.Completions-1 {
			want++
		}
	}
	if want == 0 || !strings.Contains(out.String(), "ran "+strconv.Itoa(want)+" item") {
		t.Errorf("the last index's worker said %q, want it to run its %d items", out.String(), want)
	}

	// The volume names a storage class (a placeholder to change), and run.sh's wait ends
	// on a failed Job as on a completed one.
	b, err := os.ReadFile("../../deploy/kubernetes/volume.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var pvc struct {
		Spec struct {
			StorageClassName string   `yaml:"storageClassName"`
			AccessModes      []string `yaml:"accessModes"`
		}
	}
	if err := yaml.Unmarshal(b, &pvc); err != nil || pvc.Spec.StorageClassName == "" || !slices.Equal(pvc.Spec.AccessModes, []string{"ReadWriteMany"}) {
		t.Errorf("volume.yaml (%v): storageClassName %q, accessModes %q; want a class named and ReadWriteMany", err, pvc.Spec.StorageClassName, pvc.Spec.AccessModes)
	}
}

// deploy/kubernetes/run.sh run against a stand-in for kubectl: a Job that fails ends the
// wait at once (kubectl wait --for=condition=complete alone waits its whole timeout), and
// the merge then runs and its log is shown.
func TestKubernetesRunWaitsForFailure(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	stub := filepath.Join(dir, "kubectl")
	// The stand-in: the sweep Job reports Failed on the second look; the merge completes.
	os.WriteFile(stub, []byte(`#!/bin/bash
echo "$*" >> "$LOG"
case "$*" in
*"get job/shardsim-sweep -o jsonpath={.status.conditions"*)
	n=$(grep -c 'get job/shardsim-sweep -o jsonpath={.status.conditions' "$LOG")
	if ((n >= 2)); then echo "FailureTarget Failed"; fi ;;
*"get job/shardsim-sweep -o jsonpath={.status.failedIndexes}"*) echo "1,3" ;;
*"get job/shardsim-merge"*) echo "Failed" ;;
*"logs job/shardsim-merge"*) echo "2 of 35 items are missing" ;;
esac
`), 0o755)
	cmd := exec.Command(bash, "../../deploy/kubernetes/run.sh")
	cmd.Dir = "../../deploy/kubernetes"
	cmd.Env = append(os.Environ(), "POLL_S=0.1", "KUBECTL="+stub, "LOG="+filepath.Join(dir, "log"))
	var stderr, stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	done := make(chan error, 1)
	go func() { done <- cmd.Run() }()
	select {
	case err = <-done:
	case <-time.After(time.Minute):
		cmd.Process.Kill()
		t.Fatal("run.sh still waits a minute after the Job failed")
	}
	if err == nil || !strings.Contains(stderr.String(), "shardsim-sweep failed; failed indexes: 1,3") || !strings.Contains(stdout.String(), "2 of 35 items are missing") {
		t.Errorf("run.sh: %v\nstdout: %s\nstderr: %s", err, stdout.String(), stderr.String())
	}
	log, _ := os.ReadFile(filepath.Join(dir, "log"))
	if !strings.Contains(string(log), "apply -f merge-job.yaml") {
		t.Errorf("run.sh did not run the merge after the failure:\n%s", log)
	}
}

// The Slurm scripts under deploy/slurm: the array's size is the count the workers read,
// sweep.env's command line plans (bash reads it, as sbatch would), and the worker and the
// merge use the same directory. testdata/script/slurm.txtar runs the scripts themselves.
func TestSlurmScripts(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	b, err := os.ReadFile("../../deploy/slurm/sweep.sbatch")
	if err != nil {
		t.Fatal(err)
	}
	arr := regexp.MustCompile(`(?m)^#SBATCH --array=0-(\d+)(%\d+)?$`).FindSubmatch(b)
	if arr == nil {
		t.Fatal("sweep.sbatch: no #SBATCH --array=0-N line")
	}
	if !regexp.MustCompile(`(?m)^exec shardsim sweep "\$\{ARGS\[@\]\}" -o "\$OUT" --shard auto --resume `).Match(b) {
		t.Error(`sweep.sbatch: want exec shardsim sweep "${ARGS[@]}" -o "$OUT" --shard auto --resume`)
	}
	// The merge runs however the tasks end (afterok never runs after a failed task, even
	// one requeued and then done) and checks for itself.
	sub, err := os.ReadFile("../../deploy/slurm/submit.sh")
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^sbatch --dependency=afterany:\S+ merge\.sbatch$`).Match(sub) {
		t.Error("submit.sh: want the merge submitted with --dependency=afterany")
	}
	cmd := exec.Command(bash, "-c", `source ../../deploy/slurm/sweep.env && printf '%s\0' "${ARGS[@]}"`)
	raw, err := cmd.Output()
	if err != nil {
		t.Fatalf("sourcing sweep.env: %v", err)
	}
	args := strings.Split(strings.TrimSuffix(string(raw), "\x00"), "\x00")
	if args[0] != "salt-buckets" || flagValue(args, "--slo") != "ingest:p99<20ms" {
		t.Errorf("sweep.env's ARGS read as %q", args)
	}
	n, _ := strconv.Atoi(string(arr[1]))
	var out, errb bytes.Buffer
	plan := append([]string{"sweep"}, args...)
	plan = append(plan, "-o", t.TempDir(), "--plan")
	if code := Main(plan, &out, &errb); code != 0 {
		t.Fatalf("%q: exit %d: %s", plan, code, errb.String())
	}
	m := regexp.MustCompile(`(\d+) work items`).FindStringSubmatch(out.String())
	if items, _ := strconv.Atoi(m[1]); items < n+1 {
		t.Errorf("%d items for an array of %d tasks", items, n+1)
	}
}
