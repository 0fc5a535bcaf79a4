package cluster_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/cluster"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

const testVersion = "test"

// clusterSweep is testdata/small.toml at 1, 2 and 3 nodes, both variants, four
// replications: 24 work items of 10 simulated seconds.
func clusterSweep() sweep.Config {
	slo, _ := sweep.ParseSLO("put:p99<5ms")
	return sweep.Config{
		Scenario: "../../testdata/small.toml", Options: scenarios.Options{Sets: []string{`duration="10s"`, `warmup="1s"`}},
		Axes: []sweep.Axis{{Key: "cluster.nodes", Values: []string{"1", "2", "3"}}}, Replications: 4, Parallel: 2,
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001,
	}
}

// outputs are every output of a sweep as bytes, by name.
func sweepOutputs(t *testing.T, sw *sweep.Sweep) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	dir := t.TempDir()
	files, err := sw.WriteFiles(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(f)] = b
	}
	var text, md bytes.Buffer
	sw.Text(&text)
	sw.Markdown(&md)
	out["text"], out["markdown"] = text.Bytes(), md.Bytes()
	return out
}

func sameOutputs(t *testing.T, what string, got, want map[string][]byte) {
	t.Helper()
	if len(want) < 3 || len(got) != len(want) {
		t.Errorf("%s: %d outputs, want %d", what, len(got), len(want))
	}
	for name, w := range want {
		if !bytes.Equal(got[name], w) {
			t.Errorf("%s: %s differs from the one-machine run's:\n%s\nwant:\n%s", what, name, got[name], w)
		}
	}
}

// A sweep of 24 items run by N = 1, 2, 3 and 7 workers into one directory, then merged,
// gives the same bytes as the sweep run whole; so do the workers' own directories merged
// together.
func TestClusterSweepEqualsOneMachine(t *testing.T) {
	c := clusterSweep()
	rows, err := sweep.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	want := sweepOutputs(t, &sweep.Sweep{Scenario: "small", Config: c, Rows: rows})
	w, err := cluster.PlanSweep(c, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	if n := len(w.Manifest.Items); n != 24 {
		t.Fatalf("%d work items, want 24", n)
	}
	for _, n := range []int{1, 2, 3, 7} {
		shared := t.TempDir()
		var own []string
		for k := 0; k < n; k++ {
			part := cluster.Part{K: k, N: n}
			for _, dir := range []string{shared, filepath.Join(t.TempDir(), "w")} {
				w, err := cluster.PlanSweep(c, testVersion) // each worker expands the sweep itself
				if err != nil {
					t.Fatal(err)
				}
				if err := w.Prepare(dir); err != nil {
					t.Fatal(err)
				}
				ran, skipped, err := w.RunPart(dir, mine(t, w, dir, part), false)
				if err != nil || skipped != 0 || ran != len(mine(t, w, dir, part)) {
					t.Fatalf("worker %v: ran %d, skipped %d, %v", part, ran, skipped, err)
				}
				if dir != shared {
					own = append(own, dir)
				}
			}
		}
		for _, dirs := range [][]string{{shared}, own} {
			m, err := cluster.Merge(dirs)
			if err != nil {
				t.Fatalf("N=%d: %v", n, err)
			}
			sameOutputs(t, "N="+string(rune('0'+n)), sweepOutputs(t, m.Sweep), want)
		}
	}
}

// A worker stopped after some items loses only those it was running; a rerun with resume
// runs only the rest and leaves the finished files alone.
func TestClusterResume(t *testing.T) {
	c := clusterSweep()
	dir := t.TempDir()
	stopAfter := 0
	w, err := cluster.PlanSweep(c, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Prepare(dir); err != nil {
		t.Fatal(err)
	}
	// The progress callback stops the worker (as a kill would) once 9 items are written.
	c.Parallel = 1
	c.Progress = func(done, _ int) { stopAfter = done }
	c.Stop = func() bool { return stopAfter >= 9 }
	w, _ = cluster.PlanSweep(c, testVersion)
	all := mine(t, w, dir, cluster.Part{K: 0, N: 1})
	ran, _, err := w.RunPart(dir, all, true)
	if !errors.Is(err, sweep.ErrInterrupted) || ran != 9 {
		t.Fatalf("stopped worker: ran %d, %v; want 9 and interrupted", ran, err)
	}
	done, _ := filepath.Glob(filepath.Join(dir, cluster.PointsDir, "*.json"))
	if len(done) != 9 {
		t.Fatalf("%d item files after the stop, want 9", len(done))
	}
	stamp := map[string]os.FileInfo{}
	for _, f := range done {
		st, _ := os.Stat(f)
		stamp[f] = st
	}
	if _, err := cluster.Merge([]string{dir}); err == nil || !strings.Contains(err.Error(), "15 of 24 items are missing") {
		t.Errorf("merge of a partial sweep: %v", err)
	}
	c.Stop, c.Progress = nil, nil
	w, _ = cluster.PlanSweep(c, testVersion)
	ran, skipped, err := w.RunPart(dir, all, true)
	if err != nil || ran != 15 || skipped != 9 {
		t.Fatalf("resumed worker: ran %d, skipped %d, %v; want 15 and 9", ran, skipped, err)
	}
	for f, st := range stamp {
		now, err := os.Stat(f)
		if err != nil || !os.SameFile(st, now) || !now.ModTime().Equal(st.ModTime()) {
			t.Errorf("%s was written again by the resumed worker", f)
		}
	}
	m, err := cluster.Merge([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := sweep.Run(clusterSweep())
	if err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, "resumed", sweepOutputs(t, m.Sweep), sweepOutputs(t, &sweep.Sweep{Scenario: "small", Config: clusterSweep(), Rows: rows}))
}

// Parts that do not belong together are refused, each with a message that names the
// problem: another command's manifest, a missing item, an item twice, a foreign item.
func TestClusterRefusesMismatch(t *testing.T) {
	c := clusterSweep()
	c.Axes[0].Values = c.Axes[0].Values[:2]
	c.Replications = 1
	run := func(c sweep.Config, dir string, part cluster.Part) *cluster.Work {
		w, err := cluster.PlanSweep(c, testVersion)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Prepare(dir); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.RunPart(dir, mine(t, w, dir, part), false); err != nil {
			t.Fatal(err)
		}
		return w
	}
	refused := func(what string, err error, want string) {
		t.Helper()
		var me *cluster.ManifestError
		if !errors.As(err, &me) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: got %v, want a manifest error saying %q", what, err, want)
		}
	}
	a, b := t.TempDir(), t.TempDir()
	run(c, a, cluster.Part{K: 0, N: 2})

	other := c
	other.Options.Sets = append([]string{"cluster.cores=4"}, c.Options.Sets...)
	w, err := cluster.PlanSweep(other, testVersion)
	if err != nil {
		t.Fatal(err)
	}
	refused("another --set into the same directory", w.Prepare(a), `"set" differs`)
	w, _ = cluster.PlanSweep(c, "another version")
	refused("another version", w.Prepare(a), `was planned by another build of shardsim`)

	_, err = cluster.Merge([]string{a})
	refused("half the items", err, "2 of 4 items are missing")

	run(c, b, cluster.Part{K: 0, N: 1})
	_, err = cluster.Merge([]string{a, b})
	refused("an item in two directories", err, "is there twice")

	o := t.TempDir()
	run(other, o, cluster.Part{K: 1, N: 2})
	_, err = cluster.Merge([]string{a, o})
	refused("directories of different runs", err, `"set" differs`)
	// An item of another run copied in beside the right manifest.
	foreign, _ := filepath.Glob(filepath.Join(o, cluster.PointsDir, "*.json"))
	for _, f := range foreign {
		data, _ := os.ReadFile(f)
		os.WriteFile(filepath.Join(a, cluster.PointsDir, filepath.Base(f)), data, 0o644)
	}
	_, err = cluster.Merge([]string{a})
	refused("a foreign item", err, "is not in the manifest")
	// The same, renamed as an item of this run: its content gives it away.
	for _, f := range foreign {
		os.Remove(filepath.Join(a, cluster.PointsDir, filepath.Base(f)))
	}
	wa, _ := cluster.PlanSweep(c, testVersion)
	data, _ := os.ReadFile(foreign[0])
	for i := range wa.Manifest.Items {
		if _, err := os.Stat(wa.Manifest.File(a, i)); err != nil {
			os.WriteFile(wa.Manifest.File(a, i), data, 0o644)
		}
	}
	_, err = cluster.Merge([]string{a})
	refused("a foreign item under this run's name", err, "belongs to another run")
}

// A capacity search distributed over its points and variants and merged gives the same
// answers, tables and capacity.json as one machine: merge replays each search over the
// runs its worker recorded.
func TestClusterCapacityEqualsOneMachine(t *testing.T) {
	slo, _ := sweep.ParseSLO("put:p99<20ms")
	c := capacity.Config{
		Config: sweep.Config{Scenario: "../../testdata/small.toml", Options: scenarios.Options{Sets: []string{`duration="10s"`, `warmup="1s"`}},
			Axes: []sweep.Axis{{Key: "cluster.nodes", Values: []string{"1", "2"}}}, Replications: 2, Parallel: 2},
		SLOs: []sweep.SLO{slo}, MaxErrors: 0.001, Tolerance: 0.02,
	}
	res, err := capacity.Run(c)
	if err != nil {
		t.Fatal(err)
	}
	report := func(cr *capacity.Report) map[string][]byte {
		out := map[string][]byte{}
		b, err := json.MarshalIndent(cr.JSON(), "", "  ")
		if err != nil {
			t.Fatal(err)
		}
		var text, csv bytes.Buffer
		cr.Text(&text)
		if err := cr.CSV(&csv); err != nil {
			t.Fatal(err)
		}
		out["json"], out["text"], out["csv"] = b, text.Bytes(), csv.Bytes()
		return out
	}
	want := report(&capacity.Report{Scenario: "small", Config: c, Rows: res})
	dir := t.TempDir()
	for k := 0; k < 3; k++ {
		w, err := cluster.PlanCapacity(c, testVersion)
		if err != nil {
			t.Fatal(err)
		}
		if len(w.Manifest.Items) != 4 {
			t.Fatalf("%d capacity items, want 4 (2 points x 2 variants)", len(w.Manifest.Items))
		}
		if err := w.Prepare(dir); err != nil {
			t.Fatal(err)
		}
		if _, _, err := w.RunPart(dir, mine(t, w, dir, cluster.Part{K: k, N: 3}), false); err != nil {
			t.Fatal(err)
		}
	}
	m, err := cluster.Merge([]string{dir})
	if err != nil {
		t.Fatal(err)
	}
	sameOutputs(t, "capacity", report(m.Capacity), want)
}

// mine places part p in the static plan under dir (writing it if none is there) and
// returns its items.
func mine(t *testing.T, w *cluster.Work, dir string, p cluster.Part) []int {
	t.Helper()
	l, q, err := w.Place(dir, p)
	if err != nil {
		t.Fatal(err)
	}
	return w.Mine(l, q)
}

func TestPartFromEnv(t *testing.T) {
	env := func(kv ...string) func(string) string {
		return func(k string) string {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1]
				}
			}
			return ""
		}
	}
	for _, tc := range []struct {
		env  []string
		n    int
		want string // the part, or the error's words
	}{
		{[]string{"JOB_COMPLETION_INDEX", "3"}, 8, "3/8"},
		{[]string{"JOB_COMPLETION_INDEX", "3"}, 0, "give --shards N"},
		{[]string{"JOB_COMPLETION_INDEX", "8"}, 8, "want 0 <= K < N"},
		{[]string{"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "5"}, 0, "2/5"},
		{[]string{"SLURM_ARRAY_TASK_ID", "3", "SLURM_ARRAY_TASK_MIN", "1", "SLURM_ARRAY_TASK_COUNT", "4"}, 0, "2/4"},
		{[]string{"SLURM_ARRAY_TASK_ID", "2", "SLURM_ARRAY_TASK_COUNT", "5"}, 4, "disagrees"},
		{[]string{"SLURM_ARRAY_TASK_ID", "x"}, 4, "not a whole number"},
		{nil, 4, "neither JOB_COMPLETION_INDEX"},
	} {
		p, err := cluster.PartFromEnv(env(tc.env...), tc.n)
		got := p.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%v, --shards %d: got %q, want %q", tc.env, tc.n, got, tc.want)
		}
	}
	for s, want := range map[string]string{"0/1": "0/1", "6/7": "6/7", "7/7": "want 0 <= K < N", "a/b": "want K/N", "3": "want K/N"} {
		p, err := cluster.ParsePart(s)
		got := p.String()
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, want) {
			t.Errorf("ParsePart(%q) = %q, want %q", s, got, want)
		}
	}
}
