package sweep

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

	"github.com/shardsim/shardsim/internal/atomicfile"
	"github.com/shardsim/shardsim/internal/pool"
	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/scenarios"
)

// A sweep or capacity search runs across machines in three steps (docs/cluster.md):
//
//  1. Each worker expands the same command line into the same work items, in the same
//     order (Plan), and writes the manifest that lists them (DIR/manifest.json); the first
//     worker writes it and the others check that theirs is the same.
//  2. Worker K of N runs the items whose index is K modulo N and writes each one's figures
//     to a file of its own as it finishes (DIR/points/), atomically, so that a worker
//     that is killed loses only the items it was running, and a rerun with resume skips
//     the finished ones.
//  3. Merge reads the manifest and the items and makes the rows, tables, charts and files
//     with the same code as a sweep on one machine, from the same figures: the outputs
//     are the same bytes.
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
	Sets         []string       `json:"set"`
	Overrides    []string       `json:"overrides"`
	Variants     []string       `json:"variants"`
	Vary         []Axis         `json:"vary"`
	Replications int            `json:"replications"`
	SLOs         []string       `json:"slos"`
	MaxErrors    float64        `json:"max_errors"`
	Capacity     *CapacitySetup `json:"capacity,omitempty"`
	Items        []Item         `json:"items"`
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

// Hash returns the manifest's hash, which every item file carries.
func (m *Manifest) Hash() string {
	b, _ := json.Marshal(m)
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
	sweep    *plan
	capacity *capacityPlan
}

// PlanSweep expands a sweep into its work items; version is shardsim's.
func PlanSweep(c Config, version string) (*Work, error) {
	pl, err := newPlan(&c)
	if err != nil {
		return nil, err
	}
	m := newManifest("sweep", version, &c, pl.name, pl.sha256)
	for i, j := range pl.jobs {
		eff := effectiveJSON(j.v)
		m.Items = append(m.Items, Item{Index: i, ID: itemID("sweep", eff, j.name, j.rep), Point: pl.points[j.point].Values,
			Variant: j.name, Replication: j.rep, Seed: pl.seeds[j.point] + uint64(j.rep)})
	}
	m.Variants = variantNames(pl.firsts)
	return &Work{Manifest: m, sweep: pl}, nil
}

// PlanCapacity expands a capacity search into its work items, one per point and variant.
func PlanCapacity(c CapacityConfig, version string) (*Work, error) {
	cp, err := newCapacityPlan(&c)
	if err != nil {
		return nil, err
	}
	m := newManifest("capacity", version, &c.Config, cp.name, cp.sha256)
	m.SLOs, m.MaxErrors = sloTexts(c.SLOs), c.MaxErrors
	m.Capacity = &CapacitySetup{Require: c.Require.String(), Tolerance: c.Tolerance, MaxMultiple: c.MaxMultiple}
	for i, s := range cp.searches {
		m.Items = append(m.Items, Item{Index: i, ID: itemID("capacity", cp.effective[i], s.variant, 0), Point: s.point.Values,
			Variant: s.variant, Seed: s.seed, LoadFactor: s.lf, MostMultiple: s.most})
		if !slices.Contains(m.Variants, s.variant) {
			m.Variants = append(m.Variants, s.variant)
		}
	}
	return &Work{Manifest: m, capacity: cp}, nil
}

func newManifest(kind, version string, c *Config, name, sha string) *Manifest {
	m := &Manifest{Kind: kind, Version: version, Scenario: c.Scenario, Name: name, SHA256: sha,
		Sets: nonNil(c.Options.Sets), Overrides: []string{}, Vary: c.Axes, Replications: c.Replications,
		SLOs: sloTexts(c.SLOs), MaxErrors: c.MaxErrors}
	for _, o := range c.Options.Overrides {
		m.Overrides = append(m.Overrides, o.Key+"="+o.Value)
	}
	if m.Vary == nil {
		m.Vary = []Axis{}
	}
	return m
}

func nonNil(xs []string) []string {
	if xs == nil {
		return []string{}
	}
	return xs
}

func sloTexts(slos []SLO) []string {
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
		panic("sweep: a resolved model does not encode: " + err.Error())
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

// Part is worker K's share of N (0 <= K < N): the items whose index is K modulo N.
type Part struct{ K, N int }

func (p Part) String() string { return fmt.Sprintf("%d/%d", p.K, p.N) }

// ParsePart reads "K/N".
func ParsePart(s string) (Part, error) {
	k, n, ok := strings.Cut(s, "/")
	pk, err1 := strconv.Atoi(strings.TrimSpace(k))
	pn, err2 := strconv.Atoi(strings.TrimSpace(n))
	if !ok || err1 != nil || err2 != nil {
		return Part{}, fmt.Errorf("--shard %q: want K/N (worker K of N, counting from 0) or auto", s)
	}
	return checkPart(Part{pk, pn}, "--shard "+s)
}

func checkPart(p Part, what string) (Part, error) {
	if p.N < 1 || p.K < 0 || p.K >= p.N {
		return Part{}, fmt.Errorf("%s: want 0 <= K < N (got worker %d of %d)", what, p.K, p.N)
	}
	return p, nil
}

// PartFromEnv reads the worker's index and count from a batch system: Kubernetes' Indexed
// Jobs set JOB_COMPLETION_INDEX (the count is the Job's completions, which the pod is not
// told: n, from --shards); Slurm's job arrays set SLURM_ARRAY_TASK_ID and
// SLURM_ARRAY_TASK_COUNT (and SLURM_ARRAY_TASK_MIN when the array does not start at 0).
// n, when above 0, is the count and must agree with Slurm's.
func PartFromEnv(getenv func(string) string, n int) (Part, error) {
	atoi := func(name string) (int, bool, error) {
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
	if k, ok, err := atoi("JOB_COMPLETION_INDEX"); ok || err != nil {
		if err != nil {
			return Part{}, err
		}
		if n < 1 {
			return Part{}, fmt.Errorf("--shard auto: JOB_COMPLETION_INDEX=%d is set but not the number of workers; give --shards N (the Job's completions)", k)
		}
		return checkPart(Part{k, n}, fmt.Sprintf("--shard auto (JOB_COMPLETION_INDEX=%d, --shards %d)", k, n))
	}
	if id, ok, err := atoi("SLURM_ARRAY_TASK_ID"); ok || err != nil {
		if err != nil {
			return Part{}, err
		}
		lo, _, err := atoi("SLURM_ARRAY_TASK_MIN")
		if err != nil {
			return Part{}, err
		}
		count, hasCount, err := atoi("SLURM_ARRAY_TASK_COUNT")
		if err != nil {
			return Part{}, err
		}
		switch {
		case !hasCount && n < 1:
			return Part{}, fmt.Errorf("--shard auto: SLURM_ARRAY_TASK_ID=%d is set without SLURM_ARRAY_TASK_COUNT; give --shards N", id)
		case hasCount && n > 0 && n != count:
			return Part{}, fmt.Errorf("--shard auto: --shards %d disagrees with SLURM_ARRAY_TASK_COUNT=%d", n, count)
		case !hasCount:
			count = n
		}
		return checkPart(Part{id - lo, count}, fmt.Sprintf("--shard auto (SLURM_ARRAY_TASK_ID=%d, SLURM_ARRAY_TASK_MIN=%d, count %d)", id, lo, count))
	}
	return Part{}, fmt.Errorf("--shard auto: neither JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) nor SLURM_ARRAY_TASK_ID (a Slurm job array) is set; give --shard K/N")
}

// SetProgress sets the function told of the runs (or searches) done.
func (w *Work) SetProgress(f func(done, total int)) {
	if w.sweep != nil {
		w.sweep.c.Progress = f
	} else {
		w.capacity.c.Progress = f
	}
}

// Mine returns the indices of part p's items.
func (w *Work) Mine(p Part) []int {
	var out []int
	for i := range w.Manifest.Items {
		if i%p.N == p.K {
			out = append(out, i)
		}
	}
	return out
}

// ManifestError is a manifest or item that does not belong with the others; the command
// line should change (exit status 2).
type ManifestError struct{ Msg string }

func (e *ManifestError) Error() string { return e.Msg }

// Prepare makes dir/points and writes the manifest there, or checks that the one there is
// the same.
func (w *Work) Prepare(dir string) error {
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
	if f := old.Differs(w.Manifest); f != "" {
		return &ManifestError{fmt.Sprintf("%s holds the manifest of another %s: its %q differs from this command's; use another -o, or remove the directory to start again", dir, old.Kind, f)}
	}
	return nil
}

func readManifest(path string) (*Manifest, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
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
	Item
	Run  *metrics.Run `json:"run,omitempty"`  // a sweep item's figures
	Runs []searchRun  `json:"runs,omitempty"` // a capacity item's runs, by multiple then replication
}

// searchRun is one run of a capacity search.
type searchRun struct {
	Multiple    float64      `json:"multiple"`
	Replication int          `json:"replication"`
	Run         *metrics.Run `json:"run"`
}

// finished reports whether item i's file under dir is there and belongs to this manifest.
func (w *Work) finished(dir string, i int) bool {
	f, err := readItem(w.Manifest.File(dir, i))
	return err == nil && f.Manifest == w.Manifest.Hash() && f.Index == i && f.ID == w.Manifest.Items[i].ID
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
	hash := w.Manifest.Hash()
	write := func(f *itemFile) error {
		b, err := json.Marshal(f)
		if err != nil {
			return fmt.Errorf("item %d: %w", f.Index, err)
		}
		return atomicfile.Write(w.Manifest.File(dir, f.Index), append(b, '\n'))
	}
	if w.sweep != nil {
		err = w.sweep.run(todo, func(i int, r *metrics.Run) error {
			ran++
			return write(&itemFile{Manifest: hash, Item: w.Manifest.Items[i], Run: r})
		})
		return ran, skipped, err
	}
	err = w.capacity.run(todo, func(i int, _ Capacity) error {
		ran++
		s := w.capacity.searches[i]
		f := &itemFile{Manifest: hash, Item: w.Manifest.Items[i]}
		for k, r := range s.runs {
			f.Runs = append(f.Runs, searchRun{Multiple: k.m, Replication: k.r, Run: r})
		}
		slices.SortFunc(f.Runs, func(a, b searchRun) int {
			if a.Multiple != b.Multiple {
				if a.Multiple < b.Multiple {
					return -1
				}
				return 1
			}
			return a.Replication - b.Replication
		})
		return write(f)
	})
	return ran, skipped, err
}

// Merged is a sweep or a capacity search put together from its parts.
type Merged struct {
	Manifest *Manifest
	Sweep    *Sweep          // a sweep's
	Capacity *CapacityReport // a capacity search's
}

// Merge reads the manifests and work items of dirs (one directory, or the directories of
// several workers) and makes the sweep or capacity search they hold, as one machine would
// have. Every directory must hold the same manifest and every item must be there exactly
// once; the errors name what is missing, duplicated or foreign (*ManifestError).
func Merge(dirs []string) (*Merged, error) {
	if len(dirs) == 0 {
		return nil, &ManifestError{"merge needs at least one directory"}
	}
	var m *Manifest
	for _, d := range dirs {
		path := filepath.Join(d, ManifestName)
		dm, err := readManifest(path)
		if errors.Is(err, os.ErrNotExist) {
			return nil, &ManifestError{fmt.Sprintf("%s: no %s; is it the -o of a sweep or capacity run with --shard or --plan?", d, ManifestName)}
		}
		if err != nil {
			return nil, err
		}
		if m == nil {
			m = dm
		} else if f := m.Differs(dm); f != "" {
			return nil, &ManifestError{fmt.Sprintf("%s and %s are manifests of different runs: their %q differs", filepath.Join(dirs[0], ManifestName), path, f)}
		}
	}
	hash := m.Hash()
	files := make([]*itemFile, len(m.Items))
	where := make([]string, len(m.Items))
	seenDir := map[string]bool{}
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		if seenDir[abs] {
			continue // the same directory named twice holds its items once
		}
		seenDir[abs] = true
		names, err := filepath.Glob(filepath.Join(d, PointsDir, "*.json"))
		if err != nil {
			return nil, err
		}
		for _, path := range names {
			f, err := readItem(path)
			if err != nil {
				return nil, err
			}
			i := f.Index
			switch {
			case f.Manifest != hash:
				return nil, &ManifestError{fmt.Sprintf("%s belongs to another run (manifest %s, not %s)", path, f.Manifest, hash)}
			case i < 0 || i >= len(m.Items) || f.ID != m.Items[i].ID:
				return nil, &ManifestError{fmt.Sprintf("%s: item %d (id %s) is not in the manifest", path, i, f.ID)}
			case files[i] != nil:
				return nil, &ManifestError{fmt.Sprintf("item %d is there twice: %s and %s", i, where[i], path)}
			case m.Kind == "sweep" && f.Run == nil || m.Kind == "capacity" && len(f.Runs) == 0:
				return nil, &ManifestError{fmt.Sprintf("%s: item %d holds no figures", path, i)}
			}
			files[i], where[i] = f, path
		}
	}
	var missing []string
	for i, f := range files {
		if f == nil {
			it := m.Items[i]
			desc := fmt.Sprintf("item %d (variant %q", i, it.Variant)
			if len(it.Point) > 0 {
				desc += ", point " + strings.Join(it.Point, ", ")
			}
			if m.Kind == "sweep" {
				desc += fmt.Sprintf(", replication %d", it.Replication)
			}
			missing = append(missing, desc+")")
		}
	}
	if len(missing) > 0 {
		more := ""
		if len(missing) > 5 {
			more = fmt.Sprintf(" and %d more", len(missing)-5)
			missing = missing[:5]
		}
		n := len(files) - countNonNil(files)
		verb := "are"
		if n == 1 {
			verb = "is"
		}
		return nil, &ManifestError{fmt.Sprintf("%d of %d items %s missing: %s%s; run the workers that own them again (with --resume)", n, len(files), verb, strings.Join(missing, "; "), more)}
	}
	c, err := m.config()
	if err != nil {
		return nil, err
	}
	if m.Kind == "sweep" {
		pl := &plan{c: &c.Config, points: Points(c.Axes), name: m.Name, sha256: m.SHA256}
		pl.seeds = make([]uint64, len(pl.points))
		pl.firsts = make([][]*scenarios.Variant, len(pl.points))
		samples := make([]*metrics.Run, len(files))
		for i, f := range files {
			it := m.Items[i]
			pi := pointIndex(pl.points, it.Point)
			vi := slices.Index(m.Variants, it.Variant)
			if pi < 0 || vi < 0 {
				return nil, &ManifestError{fmt.Sprintf("manifest item %d: point %v or variant %q is not in the manifest", i, it.Point, it.Variant)}
			}
			pl.seeds[pi] = it.Seed - uint64(it.Replication)
			pl.jobs = append(pl.jobs, job{point: pi, rep: it.Replication, variant: vi, name: it.Variant})
			samples[i] = f.Run
		}
		for pi := range pl.firsts {
			pl.firsts[pi] = make([]*scenarios.Variant, len(m.Variants))
		}
		rows := pl.rows(samples)
		return &Merged{Manifest: m, Sweep: &Sweep{Scenario: m.Name, Config: c.Config, Rows: rows}}, nil
	}
	out := make([]Capacity, len(files))
	p := pool.New(1, nil)
	for i, f := range files {
		it := m.Items[i]
		pi := pointIndex(Points(c.Axes), it.Point)
		if pi < 0 {
			return nil, &ManifestError{fmt.Sprintf("manifest item %d: point %v is not in the manifest", i, it.Point)}
		}
		s := newSearch(&c, Points(c.Axes)[pi], it.Variant, it.Seed, it.LoadFactor, it.MostMultiple)
		s.replay, s.pool, s.progress = true, p, func() {}
		for _, r := range f.Runs {
			s.runs[runKey{r.Multiple, r.Replication}] = r.Run
		}
		s.count = len(s.runs)
		res, err := s.answer()
		if err != nil {
			return nil, &ManifestError{fmt.Sprintf("%s: %v", where[i], err)}
		}
		out[i] = res
	}
	return &Merged{Manifest: m, Capacity: &CapacityReport{Scenario: m.Name, Config: c, Rows: out}}, nil
}

func countNonNil(files []*itemFile) int {
	n := 0
	for _, f := range files {
		if f != nil {
			n++
		}
	}
	return n
}

func pointIndex(points []Point, values []string) int {
	return slices.IndexFunc(points, func(p Point) bool { return slices.Equal(p.Values, values) })
}

// config rebuilds the configuration the outputs read from the manifest.
func (m *Manifest) config() (CapacityConfig, error) {
	c := CapacityConfig{Config: Config{Scenario: m.Scenario, Axes: m.Vary, Replications: m.Replications, Parallel: 1, MaxErrors: m.MaxErrors}}
	c.MaxErrors = m.MaxErrors
	for _, t := range m.SLOs {
		slo, err := ParseSLO(t)
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
	req, err := ParseRequire(m.Capacity.Require)
	if err != nil {
		return c, &ManifestError{fmt.Sprintf("manifest: %v", err)}
	}
	c.Require, c.Tolerance, c.MaxMultiple = req, m.Capacity.Tolerance, m.Capacity.MaxMultiple
	return c, nil
}

// MissingRunError says that a capacity search replayed from a cluster's files needs a run
// the files do not hold: they were not written by this search.
type MissingRunError struct {
	Variant  string
	Point    Point
	Multiple float64
	Seed     uint64
}

func (e *MissingRunError) Error() string {
	return fmt.Sprintf("the search of variant %q needs a run at multiple %s with seed %d that its file does not hold",
		e.Variant, strconv.FormatFloat(e.Multiple, 'g', -1, 64), e.Seed)
}
