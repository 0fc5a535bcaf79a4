package cluster

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/pool"
	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/sweep"
)

// Merged is a sweep or a capacity search put together from its parts.
type Merged struct {
	Manifest *Manifest
	Sweep    *sweep.Sweep     // a sweep's
	Capacity *capacity.Report // a capacity search's
}

// Merge reads the manifests and work items of dirs (one directory, or the directories of
// several workers) and makes the sweep or capacity search they hold, as one machine would
// have. Every directory must hold the same manifest, every item must be there exactly once
// and come from the manifest's build; the errors name what is missing (and the workers
// that own it), duplicated, foreign or of another build (*ManifestError).
//
// The items are streamed: their files are listed first, then read a row (a point and
// variant's replications) at a time, a few rows at once, so memory holds a few rows'
// figures, not every item's.
func Merge(dirs []string) (*Merged, error) {
	if len(dirs) == 0 {
		return nil, &ManifestError{"merge needs at least one directory"}
	}
	m, err := mergeManifests(dirs)
	if err != nil {
		return nil, err
	}
	where, err := listItems(m, dirs)
	if err != nil {
		return nil, err
	}
	if err := checkMissing(m, dirs, where); err != nil {
		return nil, err
	}
	c, err := m.config()
	if err != nil {
		return nil, err
	}
	rd := &itemReader{m: m, hash: m.Hash()}
	if m.Kind == "sweep" {
		rows, err := mergeRows(m, &c, where, rd)
		if err != nil {
			return nil, err
		}
		return &Merged{Manifest: m, Sweep: &sweep.Sweep{Scenario: m.Name, Config: c.Config, Rows: rows}}, nil
	}
	res, err := mergeAnswers(m, &c, where, rd)
	if err != nil {
		return nil, err
	}
	return &Merged{Manifest: m, Capacity: &capacity.Report{Scenario: m.Name, Config: c, Rows: res}}, nil
}

// mergeAnswers replays a capacity search's items, a few at once, over the runs their
// files hold (capacity.Replay).
func mergeAnswers(m *Manifest, c *capacity.Config, where []string, rd *itemReader) ([]capacity.Answer, error) {
	points := sweep.Points(c.Axes)
	out := make([]capacity.Answer, len(where))
	errs := make([]error, len(where))
	eachAtOnce(len(where), func(i int) {
		it := m.Items[i]
		pi := pointIndex(points, it.Point)
		if pi < 0 {
			errs[i] = &ManifestError{fmt.Sprintf("manifest item %d: point %v is not in the manifest", i, it.Point)}
			return
		}
		f, err := rd.read(where[i], i)
		if err != nil || f == nil {
			errs[i] = err
			return
		}
		for _, r := range f.Runs {
			if err := checkRun(r.Run, nil); err != nil {
				errs[i] = &ManifestError{fmt.Sprintf("%s: item %d: its run at multiple %g, replication %d %v", where[i], i, r.Multiple, r.Replication, err)}
				return
			}
		}
		res, err := capacity.Replay(c, points[pi], it.Variant, it.Seed, it.LoadFactor, it.MostMultiple, f.Runs)
		if err != nil {
			errs[i] = &ManifestError{fmt.Sprintf("%s: %v", where[i], err)}
			return
		}
		out[i] = res
	})
	if err := rd.mixed(); err != nil {
		return nil, err
	}
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	return out, nil
}

// mergeManifests reads every directory's manifest and checks that they are the same (their
// builds aside: items of another build are named one by one). Manifests that are the same
// bytes are decoded once.
func mergeManifests(dirs []string) (*Manifest, error) {
	var m *Manifest
	var first []byte
	for _, d := range dirs {
		st, err := os.Stat(d)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, &ManifestError{fmt.Sprintf("%s: no such directory", d)}
		case err != nil:
			return nil, &ManifestError{err.Error()}
		case !st.IsDir():
			return nil, &ManifestError{fmt.Sprintf("%s is a file, not a directory: merge reads the -o directories of the workers (each holds %s and %s/)", d, ManifestName, PointsDir)}
		}
		path := filepath.Join(d, ManifestName)
		b, err := os.ReadFile(path)
		switch {
		case errors.Is(err, os.ErrNotExist):
			return nil, &ManifestError{fmt.Sprintf("%s: no %s; is it the -o of a sweep or capacity run with --shard or --plan?", d, ManifestName)}
		case err != nil:
			return nil, &ManifestError{fmt.Sprintf("%s: %v", path, unwrapPath(err))}
		}
		if m != nil && bytes.Equal(b, first) {
			continue
		}
		dm, err := decodeManifest(path, b)
		if err != nil {
			return nil, err
		}
		if m == nil {
			m, first = dm, b
			if err := m.check(path); err != nil {
				return nil, err
			}
			continue
		}
		a, o := *m, *dm
		a.Build, o.Build = Build{}, Build{}
		if f := a.Differs(&o); f != "" {
			return nil, &ManifestError{fmt.Sprintf("%s and %s are manifests of different runs: their %q differs", filepath.Join(dirs[0], ManifestName), path, f)}
		}
	}
	return m, nil
}

// check refuses a manifest that no plan writes: merge indexes by what it says.
func (m *Manifest) check(path string) error {
	bad := func(what string) error {
		return &ManifestError{fmt.Sprintf("%s: not a shardsim manifest: %s", path, what)}
	}
	if m.Kind != "sweep" && m.Kind != "capacity" {
		return bad(fmt.Sprintf("kind %q", m.Kind))
	}
	if m.Replications < 1 {
		return bad("no replications")
	}
	if len(m.Items) == 0 {
		return bad("no items")
	}
	for i, it := range m.Items {
		if it.Index != i || len(it.Point) != len(m.Vary) || m.Kind == "sweep" && (it.Replication < 0 || it.Replication >= m.Replications) {
			return bad(fmt.Sprintf("item %d is out of place", i))
		}
	}
	return nil
}

// unwrapPath drops the path an *os.PathError repeats.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// listItems finds every item's file by its name (NNNNN-ID.json) without reading it.
func listItems(m *Manifest, dirs []string) ([]string, error) {
	where := make([]string, len(m.Items))
	seenDir := map[string]bool{}
	for _, d := range dirs {
		abs, _ := filepath.Abs(d)
		if seenDir[abs] {
			continue // the same directory named twice holds its items once
		}
		seenDir[abs] = true
		if err := listDir(m, filepath.Join(d, PointsDir), where); err != nil {
			return nil, err
		}
	}
	return where, nil
}

// listDir records in where the path of every item whose file is in pd, a directory of
// finished items, refusing a file that is not an item of m or an item found twice.
func listDir(m *Manifest, pd string, where []string) error {
	ents, err := os.ReadDir(pd)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil // planned, nothing finished yet
	case err != nil:
		if st, serr := os.Stat(pd); serr == nil && !st.IsDir() {
			return &ManifestError{fmt.Sprintf("%s is a file, not the directory of finished items", pd)}
		}
		return &ManifestError{fmt.Sprintf("%s: %v", pd, unwrapPath(err))}
	}
	for _, e := range ents {
		name := e.Name()
		if strings.HasPrefix(name, ".") || !strings.HasSuffix(name, ".json") {
			continue // a file being written, or not an item's
		}
		path := filepath.Join(pd, name)
		num, id, ok := strings.Cut(strings.TrimSuffix(name, ".json"), "-")
		i, err := strconv.Atoi(num)
		switch {
		case !ok || err != nil:
			return &ManifestError{fmt.Sprintf("%s: not a work item's file name (NNNNN-ID.json)", path)}
		case i < 0 || i >= len(m.Items) || id != m.Items[i].ID:
			return &ManifestError{fmt.Sprintf("%s: item %d (id %s) is not in the manifest", path, i, id)}
		case where[i] != "":
			return &ManifestError{fmt.Sprintf("item %d is there twice: %s and %s", i, where[i], path)}
		}
		where[i] = path
	}
	return nil
}

// checkMissing names the items that no directory holds, and the workers of the static plan
// (LayoutName) that own them.
func checkMissing(m *Manifest, dirs []string, where []string) error {
	var missing []string
	var idx []int
	for i, w := range where {
		if w != "" {
			continue
		}
		idx = append(idx, i)
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
	if len(missing) == 0 {
		return nil
	}
	n := len(missing)
	more := ""
	if n > 5 {
		more = fmt.Sprintf(" and %d more", n-5)
		missing = missing[:5]
	}
	verb := "are"
	if n == 1 {
		verb = "is"
	}
	rerun := "run the workers that own them again (with --resume)"
	for _, d := range dirs {
		l, err := readLayout(filepath.Join(d, LayoutName), len(m.Items))
		if err != nil {
			continue
		}
		var ks []int
		for _, i := range idx {
			if !slices.Contains(ks, l.Owner[i]) {
				ks = append(ks, l.Owner[i])
			}
		}
		slices.Sort(ks)
		rerun = l.Rerun(ks)
		break
	}
	return &ManifestError{fmt.Sprintf("%d of %d items %s missing: %s%s; %s", n, len(where), verb, strings.Join(missing, "; "), more, rerun)}
}

// itemReader reads item files and gathers those of another build, to name them all.
type itemReader struct {
	m     *Manifest
	hash  string
	mu    sync.Mutex
	other map[Build][]string // another build: its items' files
}

// read reads item i's file at path. A file of another build is set aside (nil, nil) for
// mixed to name.
func (rd *itemReader) read(path string, i int) (*itemFile, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, &ManifestError{fmt.Sprintf("%s: %v", path, unwrapPath(err))}
	}
	var f itemFile
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, &ManifestError{fmt.Sprintf("%s: not a shardsim work item: %v", path, err)}
	}
	if f.Build == nil || *f.Build != rd.m.Build {
		var other Build
		if f.Build != nil {
			other = *f.Build
		}
		rd.mu.Lock()
		if rd.other == nil {
			rd.other = map[Build][]string{}
		}
		rd.other[other] = append(rd.other[other], path)
		rd.mu.Unlock()
		return nil, nil
	}
	m := rd.m
	switch {
	case f.Manifest != rd.hash:
		return nil, &ManifestError{fmt.Sprintf("%s belongs to another run (manifest %s, not %s)", path, f.Manifest, rd.hash)}
	case f.Index != i || f.ID != m.Items[i].ID:
		return nil, &ManifestError{fmt.Sprintf("%s: holds item %d (id %s), not the item %d its name says", path, f.Index, f.ID, i)}
	case m.Kind == "sweep" && f.Run == nil || m.Kind == "capacity" && len(f.Runs) == 0:
		return nil, &ManifestError{fmt.Sprintf("%s: item %d holds no figures", path, i)}
	}
	return &f, nil
}

// mixed names the items of builds other than the manifest's.
func (rd *itemReader) mixed() error {
	if len(rd.other) == 0 {
		return nil
	}
	var parts []string
	n := 0
	for b, paths := range rd.other {
		slices.Sort(paths)
		n += len(paths)
		shown := paths
		more := ""
		if len(shown) > 5 {
			more = fmt.Sprintf(" and %d more", len(shown)-5)
			shown = shown[:5]
		}
		who := "a shardsim that did not say its build"
		if b != (Build{}) {
			who = "shardsim " + b.String()
		}
		parts = append(parts, fmt.Sprintf("%s%s (by %s)", strings.Join(shown, ", "), more, who))
	}
	slices.Sort(parts)
	return &ManifestError{fmt.Sprintf("%d items come from another build than the manifest's (shardsim %v): %s; run them again with the manifest's build (remove their files, then rerun their workers with --resume)",
		n, rd.m.Build, strings.Join(parts, "; "))}
}

// checkRun refuses figures that are not a whole run's: merge's tables index every run's
// streams by the first's. names, when given, are the streams the row's first run had.
func checkRun(r *metrics.Run, names []string) error {
	if r == nil {
		return fmt.Errorf("holds no figures")
	}
	if len(r.Streams) == 0 {
		return fmt.Errorf("has no streams")
	}
	if names != nil {
		if len(r.Streams) != len(names) {
			return fmt.Errorf("has %d streams where its point's first replication has %d", len(r.Streams), len(names))
		}
		for k, s := range r.Streams {
			if s.Name != names[k] {
				return fmt.Errorf("has stream %q where its point's first replication has %q", s.Name, names[k])
			}
		}
	}
	return nil
}

// mergeRows reads a sweep's items a row at a time and makes its rows, as plan.rows would
// from every item at once.
func mergeRows(m *Manifest, c *capacity.Config, where []string, rd *itemReader) ([]sweep.Row, error) {
	points := sweep.Points(c.Axes)
	nv := len(m.Variants)
	groups := make([][]int, len(points)*nv) // a row's items, in item order
	for i, it := range m.Items {
		pi := pointIndex(points, it.Point)
		vi := slices.Index(m.Variants, it.Variant)
		if pi < 0 || vi < 0 {
			return nil, &ManifestError{fmt.Sprintf("manifest item %d: point %v or variant %q is not in the manifest", i, it.Point, it.Variant)}
		}
		groups[pi*nv+vi] = append(groups[pi*nv+vi], i)
	}
	rows := make([]sweep.Row, len(groups))
	errs := make([]error, len(groups))
	eachAtOnce(len(groups), func(g int) {
		idx := groups[g]
		if len(idx) == 0 {
			errs[g] = &ManifestError{fmt.Sprintf("manifest: point %s, variant %q has no items", sweep.Describe(c.Axes, points[g/nv]), m.Variants[g%nv])}
			return
		}
		row := sweep.Row{Point: points[g/nv], Variant: m.Variants[g%nv]}
		ss := make([]*metrics.Run, 0, len(idx))
		var names []string
		for _, i := range idx {
			f, err := rd.read(where[i], i)
			if err != nil {
				errs[g] = err
				return
			}
			if f == nil {
				continue // another build's: named by mixed
			}
			if err := checkRun(f.Run, names); err != nil {
				errs[g] = &ManifestError{fmt.Sprintf("%s: item %d %v", where[i], i, err)}
				return
			}
			if names == nil {
				for _, s := range f.Run.Streams {
					names = append(names, s.Name)
				}
			}
			// A row reads the hottest shard's figures (Run.Shard), never every shard's: drop
			// those, the bulk of a run with many shards, so that a row holds its runs'
			// summaries and memory is bounded by the largest item, read one at a time.
			f.Run.Shards = nil
			ss = append(ss, f.Run)
			row.Seeds = append(row.Seeds, m.Items[i].Seed)
		}
		if len(ss) < len(idx) {
			return
		}
		row = sweep.RowOf(row, ss, c.SLOs, c.MaxErrors, c.MaxUtilization)
		rows[g] = row
	})
	if err := rd.mixed(); err != nil {
		return nil, err
	}
	if err := firstErr(errs); err != nil {
		return nil, err
	}
	return rows, nil
}

// eachAtOnce calls f(0..n-1), as many at once as there are CPUs.
func eachAtOnce(n int, f func(i int)) {
	pool.New(runtime.GOMAXPROCS(0), nil).Each(n, f)
}

func firstErr(errs []error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}
