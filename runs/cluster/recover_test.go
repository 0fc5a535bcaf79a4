package cluster_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/shardsim/shardsim/runs/cluster"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// slurmEnv is a Slurm array task's environment: task id of the array lo-hi:step, or of
// the list ids when given (as Slurm describes a list: its smallest and largest id and its
// count).
func slurmEnv(id int, ids []int) func(string) string {
	lo, hi := ids[0], ids[len(ids)-1]
	vals := map[string]string{
		"SLURM_ARRAY_TASK_ID":    fmt.Sprint(id),
		"SLURM_ARRAY_TASK_MIN":   fmt.Sprint(lo),
		"SLURM_ARRAY_TASK_MAX":   fmt.Sprint(hi),
		"SLURM_ARRAY_TASK_COUNT": fmt.Sprint(len(ids)),
	}
	if len(ids) > 1 {
		vals["SLURM_ARRAY_TASK_STEP"] = fmt.Sprint(ids[1] - ids[0])
	}
	return func(k string) string { return vals[k] }
}

// runTask runs Slurm task id (of the array ids) into dir, statically.
func runTask(t *testing.T, c sweep.Config, dir string, id int, ids []int) int {
	t.Helper()
	w, err := cluster.PlanSweep(c, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	p, err := cluster.PartFromEnv(slurmEnv(id, ids), 0)
	if err != nil {
		t.Fatal(err)
	}
	l, p, err := w.Place(dir, p)
	if err != nil {
		t.Fatalf("task %d: %v", id, err)
	}
	ran, _, err := w.RunPart(dir, w.Mine(l, p), true)
	if err != nil {
		t.Fatal(err)
	}
	return ran
}

// A 24-item sweep as a Slurm array of 5 tasks (0-4) whose tasks 1 and 3 die: merge names
// the tasks to rerun, and a second array of only those (--array=1,3: Slurm then says 2
// tasks, from 1 to 3) redoes exactly their items, after which the merge is the one
// machine's. The same with a stepped array (--array=0-8:2), rerun as --array=2,6.
func TestRerunSomeArrayTasks(t *testing.T) {
	c := clusterSweep()
	rows, err := sweep.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	want := sweepOutputs(t, &sweep.Sweep{Scenario: "small", Config: c, Rows: rows})
	for _, tc := range []struct {
		first, dead []int
		rerun       string
	}{
		{[]int{0, 1, 2, 3, 4}, []int{1, 3}, "rerun array tasks 1,3 (sbatch --array=1,3 sweep.sbatch)"},
		{[]int{0, 2, 4, 6, 8}, []int{2, 6}, "rerun array tasks 2,6 (sbatch --array=2,6 sweep.sbatch)"},
	} {
		dir := t.TempDir()
		ran := 0
		for _, id := range tc.first {
			if !slicesContains(tc.dead, id) {
				ran += runTask(t, c, dir, id, tc.first)
			}
		}
		_, err := cluster.Merge([]string{dir})
		if err == nil || !strings.Contains(err.Error(), tc.rerun) {
			t.Fatalf("array %v without %v: merge said %v, want it to say %q", tc.first, tc.dead, err, tc.rerun)
		}
		for _, id := range tc.dead {
			ran += runTask(t, c, dir, id, tc.dead)
		}
		if ran != 24 {
			t.Errorf("array %v: the tasks ran %d items in all, want each of the 24 once", tc.first, ran)
		}
		m, err := cluster.Merge([]string{dir})
		if err != nil {
			t.Fatal(err)
		}
		sameOutputs(t, fmt.Sprint("array ", tc.first), sweepOutputs(t, m.Sweep), want)
	}
	// A list of tasks cannot start a plan, and a task outside the plan is refused.
	dir := t.TempDir()
	w, _ := cluster.PlanSweep(c, testVersion)
	if err := w.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	p, _ := cluster.PartFromEnv(slurmEnv(3, []int{1, 3, 4}), 0)
	if _, _, err := w.Place(dir, p); err == nil || !strings.Contains(err.Error(), "are not a range") {
		t.Errorf("a first array of tasks 1,3,4 (not a range): %v", err)
	}
	runTask(t, c, dir, 0, []int{0, 1, 2})
	p, _ = cluster.PartFromEnv(slurmEnv(5, []int{5}), 0)
	if _, _, err := w.Place(dir, p); err == nil || !strings.Contains(err.Error(), "task 5 is not one of them") {
		t.Errorf("task 5 of a 0-2 plan: %v", err)
	}
}

func slicesContains(xs []int, x int) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Workers that claim items on a shared directory finish the sweep without a dead one:
// worker 1 of 3 never runs, one of its items holds a claim whose lease ran out long ago
// (its worker was killed mid-item) and another a claim that is fresh when the others start
// and expires while they work (a slow or hung worker). Workers 0 and 2 take every item
// over, and the merge is the one machine's.
func TestClaimsTakeOverADeadWorker(t *testing.T) {
	c := clusterSweep()
	rows, err := sweep.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	want := sweepOutputs(t, &sweep.Sweep{Scenario: "small", Config: c, Rows: rows})
	dir := t.TempDir()
	w, err := cluster.PlanSweep(c, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	l, p1, err := w.Place(dir, cluster.Part{K: 1, N: 3, Step: 1})
	if err != nil {
		t.Fatal(err)
	}
	dead := w.Mine(l, p1)
	if len(dead) < 2 {
		t.Fatalf("worker 1 owns %d items", len(dead))
	}
	os.MkdirAll(filepath.Join(dir, cluster.ClaimsDir), 0o755)
	claim := func(i int) string { return filepath.Join(dir, cluster.ClaimsDir, fmt.Sprintf("%05d.claim", i)) }
	os.WriteFile(claim(dead[0]), []byte("killed\n"), 0o644)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(claim(dead[0]), old, old)
	os.WriteFile(claim(dead[1]), []byte("slow\n"), 0o644)

	const lease = 2 * time.Second
	var wg sync.WaitGroup
	res := make([]cluster.Claimed, 3)
	errs := make([]error, 3)
	for _, k := range []int{0, 2} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w, err := cluster.PlanSweep(c, testVersion)
			if err != nil {
				errs[k] = err
				return
			}
			l, p, err := w.Place(dir, cluster.Part{K: k, N: 3, Step: 1})
			if err != nil {
				errs[k] = err
				return
			}
			res[k], errs[k] = w.RunClaiming(dir, l, p, lease)
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
	if ran := res[0].Ran + res[2].Ran; ran < 24 {
		t.Errorf("workers 0 and 2 ran %d items, want every one of the 24", ran)
	}
	if taken := res[0].Taken + res[2].Taken; taken < len(dead) {
		t.Errorf("workers 0 and 2 took over %d items, want at least worker 1's %d", taken, len(dead))
	}
	left, _ := filepath.Glob(filepath.Join(dir, cluster.ClaimsDir, "*"))
	if len(left) != 0 {
		t.Errorf("claims left behind: %v", left)
	}
	m, err := cluster.Merge([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, "claimed", sweepOutputs(t, m.Sweep), want)
}

// Items computed by another build (here: another engine fingerprint, as a changed engine
// or another architecture gives) are refused by merge, each named; so is a worker of
// another build in a directory planned by this one.
func TestMergeRefusesAnotherBuild(t *testing.T) {
	c := clusterSweep()
	c.Axes[0].Values = c.Axes[0].Values[:2]
	c.Replications = 1
	a, b := t.TempDir(), t.TempDir()
	for k, dir := range []string{a, b} {
		w, err := cluster.PlanSweep(c, testVersion)
		if err != nil {
			t.Fatal(err)
		}
		if w.Manifest.Build.Fingerprint != cluster.Fingerprint() || len(w.Manifest.Build.Fingerprint) != 16 {
			t.Fatalf("the manifest's build %v does not hold this engine's fingerprint %s", w.Manifest.Build, cluster.Fingerprint())
		}
		if k == 1 {
			w.Manifest.Build.Fingerprint = "0123456789abcdef"
		}
		if err := w.Prepare(dir); err != nil {
			t.Fatal(err)
		}
		l, p, err := w.Place(dir, cluster.Part{K: k, N: 2, Step: 1})
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.RunPart(dir, w.Mine(l, p), false); err != nil {
			t.Fatal(err)
		}
	}
	_, err := cluster.Merge([]string{a, b})
	var me *cluster.ManifestError
	theirs, _ := filepath.Glob(filepath.Join(b, cluster.PointsDir, "*.json"))
	if !errors.As(err, &me) || !strings.Contains(err.Error(), "come from another build") || !strings.Contains(err.Error(), "fingerprint 0123456789abcdef") {
		t.Fatalf("merge of another build's items: %v", err)
	}
	for _, f := range theirs {
		if !strings.Contains(err.Error(), f) {
			t.Errorf("the refusal does not name %s: %v", f, err)
		}
	}
	// A worker of another build is refused by the directory's manifest.
	w, _ := cluster.PlanSweep(c, testVersion)
	w.Manifest.Build.Fingerprint = "fedcba9876543210"
	if err := w.Prepare(a); !errors.As(err, &me) || !strings.Contains(err.Error(), "was planned by another build") {
		t.Errorf("a worker of another build: %v", err)
	}
	// An item edited to claim no build at all is refused too.
	data, _ := os.ReadFile(theirs[0])
	var raw map[string]any
	json.Unmarshal(data, &raw)
	delete(raw, "build")
	data, _ = json.Marshal(raw)
	os.WriteFile(theirs[0], data, 0o644)
	if _, err := cluster.Merge([]string{a, b}); err == nil || !strings.Contains(err.Error(), "did not say its build") {
		t.Errorf("an item without a build: %v", err)
	}
}

// The static plan deals items by estimated work, longest first: its largest share of work
// is never above dealing them by index (i mod N) on a grid whose items differ in cost, and
// within 5% of the mean here. The grid: quickstart at 4 durations x 3 shard counts x 3
// variants x 3 replications = 108 items, over 10 workers. SHARDSIM_BALANCE=1 logs the
// figures of docs/cluster.md's 10,000-item grid instead (100 and 200 workers).
func TestBalanceByWork(t *testing.T) {
	c := sweep.Config{Scenario: "quickstart", Replications: 3, Parallel: 1,
		Axes: []sweep.Axis{{Key: "duration", Values: []string{`"1m"`, `"2m"`, `"4m"`, `"8m"`}}, {Key: "keyspace.shards", Values: []string{"12", "24", "48"}}}}
	workers := []int{10}
	if os.Getenv("SHARDSIM_BALANCE") != "" {
		c = balanceGrid()
		workers = []int{100, 200}
	}
	w, err := cluster.PlanSweep(c, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	work := w.ItemWork()
	for _, n := range workers {
		before := cluster.MaxShare(cluster.ModuloLoad(work, n))
		owner, load := cluster.Balance(work, n)
		after := cluster.MaxShare(load)
		t.Logf("%d items over %d workers: the largest share is %.3f x the mean dealt by index, %.3f x by work", len(work), n, before, after)
		if after > before || after > 1.05 {
			t.Errorf("%d workers: largest share %.3f by work, %.3f by index", n, after, before)
		}
		sum := make([]float64, n)
		for i, k := range owner {
			sum[k] += work[i]
		}
		for k := range sum {
			if d := sum[k] - load[k]; d > 1e-6*load[k] || d < -1e-6*load[k] {
				t.Fatalf("worker %d: its items weigh %g, Balance says %g", k, sum[k], load[k])
			}
		}
	}
}

// balanceGrid is the 10,000-item grid of docs/cluster.md: quickstart's first variant at
// 10 node counts x 10 shard counts x 10 durations, 10 replications each. The duration,
// which sets an item's cost, is the last axis: dealt by index, 100 workers each get one
// duration only.
func balanceGrid() sweep.Config {
	return sweep.Config{Scenario: "quickstart", Replications: 10, Parallel: 1, MaxRuns: 20_000,
		Options: scenarios.Options{Variants: []string{"zipf user_id"}},
		Axes: []sweep.Axis{
			{Key: "cluster.nodes", Values: []string{"3", "4", "5", "6", "7", "8", "9", "10", "11", "12"}},
			{Key: "keyspace.shards", Values: []string{"12", "24", "36", "48", "60", "72", "84", "96", "108", "120"}},
			{Key: "duration", Values: []string{`"1m"`, `"2m"`, `"3m"`, `"4m"`, `"5m"`, `"6m"`, `"7m"`, `"8m"`, `"9m"`, `"10m"`}},
		}}
}
