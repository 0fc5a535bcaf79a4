package cluster

import (
	"bytes"
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/sweep"
	"github.com/shardsim/shardsim/scenarios"
)

// A sweep or capacity search runs across machines in three steps (docs/cluster.md):
//
//  1. Each worker expands the same command line into the same work items, in the same
//     order (Plan), and writes the manifest that lists them (DIR/manifest.json); the first
//     worker writes it and the others check that theirs is the same.
//  2. Worker K of N runs its share of the static plan (DIR/workers.json, which the first
//     worker deals by estimated work and every later one reads: balance.go), and with
//     claims also the items no live worker holds (claim.go). It writes each one's figures
//     to a file of its own as it finishes (DIR/points/), atomically, so that a worker
//     that is killed loses only the items it was running, and a rerun with resume skips
//     the finished ones.
//  3. Merge reads the manifest and the items, a row at a time (merge.go), and makes the
//     rows, tables, charts and files with the same code as a sweep on one machine, from
//     the same figures: the outputs are the same bytes. Every item carries the build that
//     computed it (identity.go), and merge refuses a mix.
//
// A sweep's item is one point, variant and replication, and its file holds that run's
// metrics.Run. A capacity search's item is one point and variant: its searches depend on
// each other's answers, so they cannot be cut finer. Its file holds every run the
// searches made, and merge replays the searches over them.

// ManifestName and PointsDir are where a cluster sweep keeps its manifest and its items
// under its output directory.
const (
	ManifestName = "manifest.json"
	PointsDir    = "points"
)

// Manifest describes a sweep or capacity search as its work items. Two workers or two
// directories belong to the same sweep when their manifests are equal.
type Manifest struct {
	Kind    string `json:"kind"` // "sweep" or "capacity"
	Version string `json:"shardsim_version"`
	// Scenario is the scenario as the command line gave it, Name its name, and SHA256 the
	// hash of its text.
	Scenario string `json:"scenario"`
	Name     string `json:"name"`
	SHA256   string `json:"scenario_sha256"`
	// What the command line changes: --set values, the other flags' values (--seed,
	// --duration) and the variants kept.
	Sets         []string     `json:"set"`
	Overrides    []string     `json:"overrides"`
	Variants     []string     `json:"variants"`
	Vary         []sweep.Axis `json:"vary"`
	Replications int          `json:"replications"`
	SLOs         []string     `json:"slos"`
	MaxErrors    float64      `json:"max_errors"`
	// MaxUtilization is the ceiling on the busiest node's load at peak (sweep.Config); 0
	// in a manifest written before it existed: none.
	MaxUtilization float64        `json:"max_utilization,omitempty"`
	Capacity       *CapacitySetup `json:"capacity,omitempty"`
	// Build is the shardsim that planned the sweep; every item carries its own, and merge
	// refuses items of another build. It is not part of the manifest's hash, so that an
	// item of another build is named as such, not as an item of another sweep.
	Build Build  `json:"build"`
	Items []Item `json:"items"`
}

// CapacitySetup is what a capacity search adds to a manifest.
type CapacitySetup struct {
	Require     string  `json:"require"`
	Tolerance   float64 `json:"tolerance"`
	MaxMultiple float64 `json:"max_multiple"`
}

// Item is one work item. Its ID is a hash of what it runs: the variant's resolved model
// at the point (which holds the scenario's seed) and, for a sweep, the replication. Its
// seeds follow from those (the scenario's seed plus the replication), never from the
// worker that runs it.
type Item struct {
	Index   int      `json:"index"`
	ID      string   `json:"id"`
	Point   []string `json:"point"`
	Variant string   `json:"variant"`
	// Replication is a sweep item's replication (a capacity item searches them all);
	// Seed is its seed, or a capacity item's first.
	Replication int    `json:"replication"`
	Seed        uint64 `json:"seed"`
	// A capacity item's scenario load_factor and the largest multiple it may search.
	LoadFactor   float64 `json:"load_factor,omitempty"`
	MostMultiple float64 `json:"most_multiple,omitempty"`
}

// Hash returns the manifest's hash (its build left out), which every item file carries.
func (m *Manifest) Hash() string {
	c := *m
	c.Build = Build{}
	b, _ := json.Marshal(&c)
	return fmt.Sprintf("%x", sha256.Sum256(b))[:20]
}

// File returns the path of item i's file under dir.
func (m *Manifest) File(dir string, i int) string {
	return filepath.Join(dir, PointsDir, fmt.Sprintf("%05d-%s.json", i, m.Items[i].ID))
}

// Differs names the first field in which m and o differ, or "" when they are equal.
func (m *Manifest) Differs(o *Manifest) string {
	a, b := manifestFields(m), manifestFields(o)
	// The items last: they differ whenever anything they are made from does, and the
	// field that made them differ says more.
	keys := slices.DeleteFunc(slices.Sorted(mapKeys(a)), func(k string) bool { return k == "items" })
	for _, k := range append(keys, "items") {
		if !bytes.Equal(a[k], b[k]) {
			return k
		}
	}
	return ""
}

func manifestFields(m *Manifest) map[string]json.RawMessage {
	b, _ := json.Marshal(m)
	var f map[string]json.RawMessage
	_ = json.Unmarshal(b, &f)
	return f
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Work is a sweep or capacity search expanded into its work items, ready to run in parts.
type Work struct {
	Manifest *Manifest
	sweep    *sweep.Plan
	capacity *capacity.Plan
	work     []float64 // each item's estimated work (ItemWork)
	hash     string    // the manifest's, once planned
}

// PlanSweep expands a sweep into its work items; version is shardsim's.
func PlanSweep(c sweep.Config, version string) (*Work, error) {
	pl, err := sweep.NewPlan(&c)
	if err != nil {
		return nil, err
	}
	m := newManifest("sweep", version, &c, pl.Name, pl.SHA256)
	w := &Work{Manifest: m, sweep: pl}
	for i, j := range pl.Jobs {
		eff := effectiveJSON(j.V)
		m.Items = append(m.Items, Item{Index: i, ID: itemID("sweep", eff, j.Name, j.Rep), Point: pl.Points[j.Point].Values,
			Variant: j.Name, Replication: j.Rep, Seed: pl.Seeds[j.Point] + uint64(j.Rep)})
		w.work = append(w.work, variantWork(j.V))
	}
	m.Variants = variantNames(pl.Firsts)
	w.hash = m.Hash()
	return w, nil
}

// variantWork is a variant's estimated run time on one core (compile.Work.Seconds), at
// least a microsecond so that every item weighs something.
func variantWork(v *scenarios.Variant) float64 {
	if v == nil || v.Work == nil {
		return 1e-6
	}
	return max(v.Work.Seconds, 1e-6)
}

// PlanCapacity expands a capacity search into its work items, one per point and variant.
func PlanCapacity(c capacity.Config, version string) (*Work, error) {
	cp, err := capacity.NewPlan(&c)
	if err != nil {
		return nil, err
	}
	m := newManifest("capacity", version, &c.Config, cp.Name, cp.SHA256)
	m.SLOs, m.MaxErrors = sloTexts(c.SLOs), c.MaxErrors
	m.Capacity = &CapacitySetup{Require: c.Require.String(), Tolerance: c.Tolerance, MaxMultiple: c.MaxMultiple}
	w := &Work{Manifest: m, capacity: cp}
	for i, v := range cp.Variants {
		p, variant, seed, lf, most := cp.Search(i)
		m.Items = append(m.Items, Item{Index: i, ID: itemID("capacity", effectiveJSON(v), variant, 0), Point: p.Values,
			Variant: variant, Seed: seed, LoadFactor: lf, MostMultiple: most})
		if !slices.Contains(m.Variants, variant) {
			m.Variants = append(m.Variants, variant)
		}
		// A search's runs each cost about its variant's run at the point: the searches
		// weigh alike but for that.
		w.work = append(w.work, variantWork(v))
	}
	w.hash = m.Hash()
	return w, nil
}

func newManifest(kind, version string, c *sweep.Config, name, sha string) *Manifest {
	m := &Manifest{Kind: kind, Version: version, Build: ThisBuild(version), Scenario: c.Scenario, Name: name, SHA256: sha,
		Sets: nonNil(c.Options.Sets), Overrides: []string{}, Vary: c.Axes, Replications: c.Replications,
		SLOs: sloTexts(c.SLOs), MaxErrors: c.MaxErrors, MaxUtilization: c.MaxUtilization}
	for _, o := range c.Options.Overrides {
		m.Overrides = append(m.Overrides, o.Key+"="+o.Value)
	}
	if m.Vary == nil {
		m.Vary = []sweep.Axis{}
	}
	return m
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func sloTexts(slos []sweep.SLO) []string {
	out := []string{}
	for _, s := range slos {
		out = append(out, s.Text)
	}
	return out
}

func variantNames(firsts [][]*scenarios.Variant) []string {
	out := []string{}
	if len(firsts) > 0 {
		for _, v := range firsts[0] {
			out = append(out, v.Name)
		}
	}
	return out
}

// effectiveJSON is a variant's resolved model as it runs, as JSON.
func effectiveJSON(v *scenarios.Variant) []byte {
	e := v.Spec.Effective()
	b, err := json.Marshal(&e)
	if err != nil {
		panic("cluster: a resolved model does not encode: " + err.Error())
	}
	return b
}

// itemID names a work item by what it runs.
func itemID(kind string, effective []byte, variant string, rep int) string {
	h := sha256.New()
	fmt.Fprintf(h, "%s\x00%s\x00%d\x00", kind, variant, rep)
	h.Write(effective)
	return fmt.Sprintf("%x", h.Sum(nil))[:16]
}

// ParsePart reads "K/N".
func ParsePart(s string) (Part, error) {
	k, n, ok := strings.Cut(s, "/")
	pk, err1 := strconv.Atoi(strings.TrimSpace(k))
	pn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Part{}, fmt.Errorf("--shard %q: want K/N (worker K of N, counting from 0) or auto", s)
	}
	return checkPart(Part{K: pk, N: pn, Step: 1, ID: pk}, "--shard "+s)
}

func checkPart(p Part, what string) (Part, error) {
	if p.N < 1 || p.K < 0 || p.K >= p.N {
		return Part{}, fmt.Errorf("%s: want 0 <= K < N (got worker %d of %d)", what, p.K, p.N)
	}
	return p, nil
}

// PartFromEnv reads the worker's index and count from a batch system: Kubernetes' Indexed
// Jobs set JOB_COMPLETION_INDEX (the count is the Job's completions, which the pod is not
// told: n, from --shards); Slurm's job arrays set SLURM_ARRAY_TASK_ID and describe the
// array with SLURM_ARRAY_TASK_COUNT, _MIN, _MAX and _STEP. n, when above 0, is the count
// and must agree with Slurm's. The part is the first array's; Work.Place maps the task
// of a later, smaller array (a rerun of some tasks) onto the plan the first one wrote.
func PartFromEnv(getenv func(string) string, n int) (Part, error) {
	env := intEnv(getenv)
	if k, ok, err := env("JOB_COMPLETION_INDEX"); ok || err != nil {
		if err != nil {
			return Part{}, err
		}
		if n < 1 {
			return Part{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is set but not the number of workers; give --shards N (the Job's completions)", k)
		}
		return checkPart(Part{K: k, N: n, System: "kubernetes", Step: 1, ID: k}, fmt.Sprintf("--shard auto (JOB_COMPLETION_INDEX=%d, --shards %d)", k, n))
	}
	id, ok, err := env("SLURM_ARRAY_TASK_ID")
	if err != nil {
		return Part{}, err
	}
	if !ok {
		return Part{}, fmt.Errorf("--shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm job array) is set; give --shard K/N")
	}
	return slurmPart(env, id, n)
}

// intEnv reads a whole number from the environment: false when the variable is not set.
func intEnv(getenv func(string) string) func(name string) (int, bool, error) {
	return func(name string) (int, bool, error) {
		v := strings.TrimSpace(getenv(name))
		if v == "" {
			return 0, false, nil
		}
		x, err := strconv.Atoi(v)
		if err != nil {
			return 0, true, fmt.Errorf("--shard auto: %s=%q is not a whole number", name, v)
		}
		return x, true, nil
	}
}

// slurmArray is what Slurm says of a job array: SLURM_ARRAY_TASK_MIN, _MAX, _STEP and
// _COUNT, and which of them it set.
type slurmArray struct {
	vals map[string]int
	has  map[string]bool
}

// slurmPart is task id's part of a Slurm job array (PartFromEnv); n, when above 0, is
// the count given with --shards.
func slurmPart(env func(string) (int, bool, error), id, n int) (Part, error) {
	arr := slurmArray{vals: map[string]int{}, has: map[string]bool{}}
	for _, name := range []string{"MIN", "MAX", "STEP", "COUNT"} {
		v, ok, err := env("SLURM_ARRAY_TASK_" + name)
		if err != nil {
			return Part{}, err
		}
		arr.vals[name], arr.has[name] = v, ok
	}
	lo, step, count := arr.vals["MIN"], 1, arr.vals["COUNT"]
	if arr.has["STEP"] && arr.vals["STEP"] > 0 {
		step = arr.vals["STEP"]
	}
	switch {
	case !arr.has["COUNT"] && n < 1:
		return Part{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d is set without SLURM_ARRAY_TASK_COUNT; give --shards N", id)
	case arr.has["COUNT"] && n > 0 && n != count:
		return Part{}, fmt.Errorf("--shard auto: --shards %d disagrees with SLURM_ARRAY_TASK_COUNT=%d", n, count)
	case !arr.has["COUNT"]:
		count = n
	}
	what := fmt.Sprintf("--shard auto (SLURM_ARRAY_TASK_ID=%d, SLURM_ARRAY_TASK_MIN=%d, count %d)", id, lo, count)
	p := Part{K: (id - lo) / step, N: count, System: "slurm", First: lo, Step: step, ID: id}
	if (id-lo)%step != 0 || arr.has["MAX"] && (arr.vals["MAX"]-lo)/step+1 != count {
		// Not a range lo-max:step: a list of tasks, such as a rerun's --array=3,5. It can
		// only follow a plan that a first array wrote (Work.Place).
		p.K, p.irregular = 0, fmt.Sprintf("--shard auto: the array's tasks (SLURM_ARRAY_TASK_MIN=%d, _MAX=%d, _STEP=%d, _COUNT=%d) are not a range, and no first array planned this sweep; submit the whole array first (e.g. --array=0-%d)",
			lo, arr.vals["MAX"], step, count, count-1)
		return p, nil
	}
	return checkPart(p, what)
}

// SetProgress sets the function told of the runs (or searches) done.
func (w *Work) SetProgress(f func(done, total int)) {
	if w.sweep != nil {
		w.sweep.Config().Progress = f
	} else {
		w.capacity.Config().Progress = f
	}
}

// ManifestError is a manifest or item that does not belong with the others; the command
// line should change (exit status 2).
type ManifestError struct{ Msg string }

func (e *ManifestError) Error() string { return e.Msg }

// Prepare makes dir/points and writes the manifest there, or checks that the one there is
// the same.
func (w *Work) Prepare(dir string) error {
	if st, err := os.Stat(filepath.Join(dir, PointsDir)); err == nil && !st.IsDir() {
		return &ManifestError{fmt.Sprintf("%s is a file, not the directory of finished items: remove it, or use another -o", filepath.Join(dir, PointsDir))}
	}
	if err := os.MkdirAll(filepath.Join(dir, PointsDir), 0o755); err != nil {
		return err
	}
	path := filepath.Join(dir, ManifestName)
	old, err := readManifest(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		b, _ := json.MarshalIndent(w.Manifest, "", "  ")
		return atomicfile.Write(path, append(b, '\n'))
	case err != nil:
		return err
	}
	if f := old.Differs(w.Manifest); f == "build" {
		return &ManifestError{fmt.Sprintf("%s was planned by another build of shardsim (%v), not this one (%v): plan and run every worker with one build, or use another -o", dir, old.Build, w.Manifest.Build)}
	} else if f != "" {
		return &ManifestError{fmt.Sprintf("%s holds the manifest of another %s: its %q differs from this command's; use another -o, or remove the directory to start again", dir, old.Kind, f)}
	}
	return nil
}

func readManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return decodeManifest(path, b)
}

func decodeManifest(path string, b []byte) (*Manifest, error) {
	var m Manifest
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&m); err != nil {
		return nil, &ManifestError{fmt.Sprintf("%s: not a shardsim manifest: %v", path, err)}
	}
	return &m, nil
}

// itemFile is one finished work item.
type itemFile struct {
	Manifest string `json:"manifest"` // the manifest's hash
	Build    *Build `json:"build"`    // the shardsim that computed it
	Item
	Run  *metrics.Run     `json:"run,omitempty"`  // a sweep item's figures
	Runs []capacity.RunAt `json:"runs,omitempty"` // a capacity item's runs, by multiple then replication
}

// finished reports whether item i's file under dir is there and belongs to this manifest.
func (w *Work) finished(dir string, i int) bool {
	f, err := readItem(w.Manifest.File(dir, i))
	return err == nil && f.Manifest == w.hash && f.Build != nil && *f.Build == w.Manifest.Build && f.Index == i && f.ID == w.Manifest.Items[i].ID
}

func readItem(path string) (*itemFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var f itemFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, &ManifestError{fmt.Sprintf("%s: not a shardsim work item: %v", path, err)}
	}
	return &f, nil
}

// RunPart runs the items idx (Mine's) of the work and writes each to its file under dir
// as it finishes. With resume, an item whose file is there and belongs to this manifest is
// not run again. It returns the items run and skipped. c carries Parallel, Stop and
// Progress.
func (w *Work) RunPart(dir string, idx []int, resume bool) (ran, skipped int, err error) {
	var todo []int
	for _, i := range idx {
		if resume && w.finished(dir, i) {
			skipped++
			continue
		}
		todo = append(todo, i)
	}
	if w.sweep != nil {
		err = w.sweep.RunItems(todo, func(i int, r *metrics.Run) error {
			ran++
			return w.writeItem(dir, w.sweepItem(i, r))
		})
		return ran, skipped, err
	}
	err = w.capacity.RunItems(todo, func(i int, _ capacity.Answer) error {
		ran++
		return w.writeItem(dir, w.capacityItem(i))
	})
	return ran, skipped, err
}

func (w *Work) sweepItem(i int, r *metrics.Run) *itemFile {
	return &itemFile{Manifest: w.hash, Build: &w.Manifest.Build, Item: w.Manifest.Items[i], Run: r}
}

// capacityItem is capacity item i's file, once its searches have answered: every run
// they made.
func (w *Work) capacityItem(i int) *itemFile {
	return &itemFile{Manifest: w.hash, Build: &w.Manifest.Build, Item: w.Manifest.Items[i], Runs: w.capacity.Runs(i)}
}

func (w *Work) writeItem(dir string, f *itemFile) error {
	b, err := json.Marshal(f)
	if err != nil {
		return fmt.Errorf("item %d: %w", f.Index, err)
	}
	return atomicfile.Write(w.Manifest.File(dir, f.Index), append(b, '\n'))
}

func pointIndex(points []sweep.Point, values []string) int {
	return slices.IndexFunc(points, func(p sweep.Point) bool { return slices.Equal(p.Values, values) })
}

// config rebuilds the configuration the outputs read from the manifest.
func (m *Manifest) config() (capacity.Config, error) {
	c := capacity.Config{Config: sweep.Config{Scenario: m.Scenario, Axes: m.Vary, Replications: m.Replications, Parallel: 1, MaxErrors: m.MaxErrors, MaxUtilization: m.MaxUtilization}}
	c.MaxErrors = m.MaxErrors
	for _, t := range m.SLOs {
		slo, err := sweep.ParseSLO(t)
		if err != nil {
			return c, &ManifestError{fmt.Sprintf("manifest: %v", err)}
		}
		c.SLOs = append(c.SLOs, slo)
	}
	if m.Kind == "sweep" {
		c.Config.SLOs = c.SLOs
		return c, nil
	}
	if m.Capacity == nil {
		return c, &ManifestError{"manifest: a capacity run without its setup"}
	}
	req, err := capacity.ParseRequire(m.Capacity.Require)
	if err != nil {
		return c, &ManifestError{fmt.Sprintf("manifest: %v", err)}
	}
	c.Require, c.Tolerance, c.MaxMultiple = req, m.Capacity.Tolerance, m.Capacity.MaxMultiple
	return c, nil
}
