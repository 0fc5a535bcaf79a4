package cluster

import (
	"container/heap"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// LayoutName is the file under a cluster sweep's directory that holds its static plan:
// how many workers share the items, how the batch system numbers them, and which worker
// owns each item. The first worker writes it; every later one, a rerun of some tasks
// included, reads it, so a task's items never depend on how many tasks were submitted with
// it (docs/cluster.md, "Failures and retries").
const LayoutName = "workers.json"

// Layout is a cluster sweep's static plan.
type Layout struct {
	// Workers is the number of workers; System says who numbers them: "slurm" (task ids
	// First, First+Step, ...), "kubernetes" (completion indexes 0..Workers-1) or "" (--shard
	// K/N).
	Workers int    `json:"workers"`
	System  string `json:"system"`
	First   int    `json:"first_task"`
	Step    int    `json:"task_step"`
	// Owner[i] is the worker of item i; Work[k] is worker k's estimated work in seconds of
	// one core (compile.Work.Seconds).
	Owner []int     `json:"owner"`
	Work  []float64 `json:"work"`
}

// Task names worker k as its batch system does.
func (l *Layout) Task(k int) string {
	switch l.System {
	case "slurm":
		return strconv.Itoa(l.First + k*l.Step)
	default:
		return strconv.Itoa(k)
	}
}

// Rerun says how to run workers ks (ascending) again.
func (l *Layout) Rerun(ks []int) string {
	tasks := make([]string, len(ks))
	for i, k := range ks {
		tasks[i] = l.Task(k)
	}
	list := strings.Join(tasks, ",")
	switch l.System {
	case "slurm":
		return fmt.Sprintf("rerun array tasks %s (sbatch --array=%s sweep.sbatch)", list, list)
	case "kubernetes":
		return fmt.Sprintf("rerun completion indexes %s (a Job with the same command and completions, or a new wave with --resume)", list)
	}
	parts := make([]string, len(ks))
	for i, k := range ks {
		parts[i] = fmt.Sprintf("--shard %d/%d", k, l.Workers)
	}
	return "rerun workers " + strings.Join(parts, ", ") + " with --resume"
}

// Part is one worker's place in the plan: worker K of N, as numbered by a batch system.
// Task is the batch system's name for it (Slurm's task id), for messages.
type Part struct {
	K, N int
	// System, First and Step describe how the batch system numbers the workers (Layout);
	// ID is this worker's own number there.
	System      string
	First, Step int
	ID          int
	// irregular, when set, says why this part cannot start a plan: its array is a list of
	// tasks, not a range, so only a plan that a first array wrote can place it.
	irregular string
}

func (p Part) String() string { return fmt.Sprintf("%d/%d", p.K, p.N) }

// ItemWork returns each item's estimated work, in seconds of one core: the variant's
// compile.Work.Seconds at the item's point (a capacity item's search runs several times
// that; every search at least one). Replications of a point and variant cost the same.
func (w *Work) ItemWork() []float64 { return w.work }

// Balance deals the items to n workers by estimated work, longest first, each to the
// worker with the least work so far (the lowest index on ties): the greedy
// longest-processing-time rule, whose largest share is at most 4/3 of the best possible.
// owner[i] is item i's worker; load[k] is worker k's work.
func Balance(work []float64, n int) (owner []int, load []float64) {
	order := make([]int, len(work))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case work[a] > work[b]:
			return -1
		case work[a] < work[b]:
			return 1
		}
		return 0
	})
	h := make(loadHeap, n)
	for k := range h {
		h[k] = workerLoad{k: k}
	}
	owner = make([]int, len(work))
	for _, i := range order {
		owner[i] = h[0].k
		h[0].load += work[i]
		heap.Fix(&h, 0)
	}
	load = make([]float64, n)
	for _, x := range h {
		load[x.k] = x.load
	}
	return owner, load
}

type workerLoad struct {
	k    int
	load float64
}

type loadHeap []workerLoad

func (h loadHeap) Len() int { return len(h) }
func (h loadHeap) Less(i, j int) bool {
	return h[i].load < h[j].load || h[i].load == h[j].load && h[i].k < h[j].k
}
func (h loadHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *loadHeap) Push(x any)   { *h = append(*h, x.(workerLoad)) }
func (h *loadHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// ModuloLoad is each of n workers' work when item i goes to worker i mod n (how items
// were dealt before Balance), for comparison.
func ModuloLoad(work []float64, n int) []float64 {
	load := make([]float64, n)
	for i, x := range work {
		load[i%n] += x
	}
	return load
}

// MaxShare is the largest load over the mean load (1 is a perfect balance).
func MaxShare(load []float64) float64 {
	sum := 0.0
	for _, x := range load {
		sum += x
	}
	if sum == 0 {
		return 1
	}
	return slices.Max(load) / (sum / float64(len(load)))
}

// newLayout plans the items of w over part's workers.
func (w *Work) newLayout(p Part) *Layout {
	owner, load := Balance(w.work, p.N)
	return &Layout{Workers: p.N, System: p.System, First: p.First, Step: max(p.Step, 1), Owner: owner, Work: load}
}

// Place settles this worker's part against the static plan under dir: the first worker
// writes the plan (atomically, and only if none is there), every later one reads it, so
// that a rerun of some of an array's tasks (whose batch system then counts fewer tasks)
// takes the same items as the first run of those tasks. It returns the plan and the part
// as the plan numbers it.
func (w *Work) Place(dir string, p Part) (*Layout, Part, error) {
	path := filepath.Join(dir, LayoutName)
	l, err := readLayout(path, len(w.Manifest.Items))
	if errors.Is(err, os.ErrNotExist) {
		if p.irregular != "" {
			return nil, p, &ManifestError{p.irregular}
		}
		fresh := w.newLayout(p)
		b, _ := json.Marshal(fresh)
		if err := createOnce(path, append(b, '\n')); err != nil {
			return nil, p, err
		}
		l, err = readLayout(path, len(w.Manifest.Items))
	}
	if err != nil {
		return nil, p, err
	}
	q, err := l.place(p, path)
	return l, q, err
}

// place maps part p, as its batch system numbered it, onto the layout l read from path.
func (l *Layout) place(p Part, path string) (Part, error) {
	if p.System == "slurm" && l.System == "slurm" {
		// A rerun of some tasks (--array=3,5) sees fewer tasks than the first array: the
		// task id, not its place in this array, says which worker it is.
		off := p.ID - l.First
		if off < 0 || off%l.Step != 0 || off/l.Step >= l.Workers {
			return p, &ManifestError{fmt.Sprintf("%s plans %d workers as array tasks %s; task %d is not one of them: rerun the tasks by those ids, or remove %s to plan again",
				path, l.Workers, l.taskRange(), p.ID, path)}
		}
		p.K, p.N, p.First, p.Step = off/l.Step, l.Workers, l.First, l.Step
		return p, nil
	}
	if p.N != l.Workers || p.System != l.System {
		return p, &ManifestError{fmt.Sprintf("%s plans %d workers (%s), not %d (%s): run the same number, or remove %s to plan again",
			path, l.Workers, systemName(l.System), p.N, systemName(p.System), path)}
	}
	return p, nil
}

func systemName(s string) string {
	switch s {
	case "slurm":
		return "a Slurm array"
	case "kubernetes":
		return "a Kubernetes Indexed Job"
	}
	return "--shard K/N"
}

func (l *Layout) taskRange() string {
	last := l.First + (l.Workers-1)*l.Step
	if l.Step == 1 {
		return fmt.Sprintf("%d-%d", l.First, last)
	}
	return fmt.Sprintf("%d-%d:%d", l.First, last, l.Step)
}

func readLayout(path string, items int) (*Layout, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var l Layout
	if err := json.Unmarshal(b, &l); err != nil || l.Workers < 1 || l.Step < 1 || len(l.Owner) != items || len(l.Work) != l.Workers {
		return nil, &ManifestError{fmt.Sprintf("%s: not the static plan of this sweep's %d items; remove it to plan again", path, items)}
	}
	for _, k := range l.Owner {
		if k < 0 || k >= l.Workers {
			return nil, &ManifestError{fmt.Sprintf("%s: an item's worker %d is not one of %d; remove it to plan again", path, k, l.Workers)}
		}
	}
	return &l, nil
}

// createOnce writes data to path unless a file is there already: the data goes to a
// temporary file first, which is then linked to path, so that a reader never sees it half
// written and of two writers one wins.
func createOnce(path string, data []byte) error {
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return err
	}
	name := tmp.Name()
	defer os.Remove(name)
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(0o644); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	err = os.Link(name, path)
	if err == nil || errors.Is(err, os.ErrExist) {
		return nil
	}
	// A file system without hard links: create the file exclusively instead (a reader
	// may then see it part written and refuse it, and the worker can be rerun).
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// Mine returns the items of worker p.K in the plan l, the longest first (the order it
// runs them in: what is left for others to take over at the end is the small work).
func (w *Work) Mine(l *Layout, p Part) []int {
	var out []int
	for i, k := range l.Owner {
		if k == p.K {
			out = append(out, i)
		}
	}
	slices.SortStableFunc(out, func(a, b int) int {
		switch {
		case w.work[a] > w.work[b]:
			return -1
		case w.work[a] < w.work[b]:
			return 1
		}
		return 0
	})
	return out
}
