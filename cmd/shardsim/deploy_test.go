package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

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
		Template             struct {
			Spec struct {
				RestartPolicy string `yaml:"restartPolicy"`
				Volumes       []struct {
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
	Command      []string
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
	if n, _ := strconv.Atoi(flagValue(work, "--shards")); n != s.Completions || flagValue(work, "--shard") != "auto" || !slices.Contains(work, "--resume") {
		t.Errorf("worker %q: want --shard auto --shards %d (the completions) --resume", work, s.Completions)
	}
	// The worker's command is the plan's with --plan replaced by the worker's own flags.
	common := func(args []string) []string {
		var out []string
		for i := 1; i < len(args); i++ {
			switch args[i] {
			case "--plan", "--resume", "-q":
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
	if code := Main(withOut(work[1:], tmp), &out, &errb); code != 0 {
		t.Fatalf("%q: exit %d: %s", work, code, errb.String())
	}
	want := items / s.Completions // the items i with i % N == N-1
	if !strings.Contains(out.String(), "ran "+strconv.Itoa(want)+" item") {
		t.Errorf("the last index's worker said %q, want it to run %d items", out.String(), want)
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
