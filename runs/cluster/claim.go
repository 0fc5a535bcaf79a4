package cluster

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/runs/capacity"
	"github.com/shardsim/shardsim/runs/sweep"
)

// ClaimsDir is where workers that share a directory claim the items they run
// (docs/cluster.md, "Taking over items").
const ClaimsDir = "claims"

// DefaultLease is how long a claim holds without being renewed: its worker renews it
// four times a lease while it runs the item, so a claim older than this is a dead
// worker's.
const DefaultLease = 2 * time.Minute

// claims are one worker's claims on the items of a shared directory. A claim is a file
// created with O_CREATE|O_EXCL, so that of two workers one gets it; its modification time
// is renewed while the item runs; one whose time is older than the lease is broken (renamed
// away, then claimed afresh) by the next worker that wants the item. Two workers that break
// the same stale claim at once may both run the item: they write the same bytes.
type claims struct {
	dir   string
	lease time.Duration
	who   []byte
	mu    sync.Mutex
	held  map[int]bool
}

func (c *claims) path(i int) string {
	return filepath.Join(c.dir, ClaimsDir, fmt.Sprintf("%05d.claim", i))
}

// take claims item i, breaking a stale claim; false when a live worker holds it.
func (c *claims) take(i int) (bool, error) {
	path := c.path(i)
	for attempt := 0; attempt < 2; attempt++ {
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			_, werr := f.Write(c.who)
			if cerr := f.Close(); werr == nil {
				werr = cerr
			}
			if werr != nil {
				os.Remove(path)
				return false, werr
			}
			c.mu.Lock()
			c.held[i] = true
			c.mu.Unlock()
			return true, nil
		}
		if !errors.Is(err, os.ErrExist) {
			return false, err
		}
		st, err := os.Stat(path)
		if errors.Is(err, os.ErrNotExist) {
			continue // released in between
		}
		if err != nil {
			return false, err
		}
		if time.Since(st.ModTime()) <= c.lease {
			return false, nil
		}
		broken := fmt.Sprintf("%s.stale-%d-%d", path, os.Getpid(), time.Now().UnixNano())
		if err := os.Rename(path, broken); err != nil && !errors.Is(err, os.ErrNotExist) {
			return false, err
		}
		os.Remove(broken)
	}
	return false, nil
}

// release gives item i's claim up.
func (c *claims) release(i int) {
	c.mu.Lock()
	delete(c.held, i)
	c.mu.Unlock()
	os.Remove(c.path(i))
}

// renew keeps the claims held alive until stop is closed.
func (c *claims) renew(stop <-chan struct{}) {
	t := time.NewTicker(c.lease / 4)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			now := time.Now()
			c.mu.Lock()
			for i := range c.held {
				_ = os.Chtimes(c.path(i), now, now)
			}
			c.mu.Unlock()
		}
	}
}

// Claimed is what a claiming worker did.
type Claimed struct {
	Ran     int // items it ran
	Taken   int // of those, items another worker owned in the static plan
	Skipped int // its own items that were finished before it came to them
}

// RunClaiming runs part p's items of the plan l, and then every other item that no live
// worker holds, claiming each under dir/claims before it runs: a worker that dies leaves
// a claim that expires after lease, and the others take its items over; none waits while
// an item is unclaimed. It returns when every item's file is there. workers is how many
// items run at once (Config.Parallel for a sweep; a capacity search runs its own runs in
// parallel and takes one search at a time).
func (w *Work) RunClaiming(dir string, l *Layout, p Part, lease time.Duration) (Claimed, error) {
	if lease <= 0 {
		lease = DefaultLease
	}
	if err := os.MkdirAll(filepath.Join(dir, ClaimsDir), 0o755); err != nil {
		return Claimed{}, err
	}
	host, _ := os.Hostname()
	c := &claims{dir: dir, lease: lease, who: fmt.Appendf(nil, "%s pid %d worker %v\n", host, os.Getpid(), p), held: map[int]bool{}}
	stopRenew := make(chan struct{})
	go c.renew(stopRenew)
	defer func() {
		close(stopRenew)
		c.releaseAll()
	}()

	cfg := w.config()
	progress := cfg.Progress
	cfg.Progress = nil
	defer func() { cfg.Progress = progress }()
	lanes := cfg.Parallel
	if w.capacity != nil || lanes < 1 {
		lanes = 1
	}
	cr := &claimRun{w: w, dir: dir, claims: c, progress: progress, stop: cfg.Stop}
	cr.order, cr.own = w.claimOrder(l, p)
	cr.done = make([]bool, len(cr.order))
	poll := min(lease/4, 2*time.Second)
	var wg sync.WaitGroup
	for range lanes {
		wg.Add(1)
		go func() {
			defer wg.Done()
			cr.lane(poll)
		}()
	}
	wg.Wait()
	switch {
	case cr.failed != nil:
		return cr.res, cr.failed
	case cr.stopped():
		return cr.res, sweep.ErrInterrupted
	}
	return cr.res, nil
}

// releaseAll gives every claim held up.
func (c *claims) releaseAll() {
	c.mu.Lock()
	held := make([]int, 0, len(c.held))
	for i := range c.held {
		held = append(held, i)
	}
	c.mu.Unlock()
	for _, i := range held {
		c.release(i)
	}
}

// claimOrder is the order in which part p of the plan l comes to the items: its own
// first, the longest first; then the others', each owner's from the end of its list (what
// it would come to last), owners in turn. own[i] says whether item i is p's.
func (w *Work) claimOrder(l *Layout, p Part) (order []int, own []bool) {
	mine := w.Mine(l, p)
	order = slices.Clone(mine)
	var others [][]int
	for k := 0; k < l.Workers; k++ {
		if k != p.K {
			q := p
			q.K = k
			others = append(others, w.Mine(l, q))
		}
	}
	for more := true; more; {
		more = false
		for k, list := range others {
			if len(list) > 0 {
				order = append(order, list[len(list)-1])
				others[k] = list[:len(list)-1]
				more = true
			}
		}
	}
	own = make([]bool, len(w.Manifest.Items))
	for _, i := range mine {
		own[i] = true
	}
	return order, own
}

// claimRun is a claiming worker's pass over the items, shared by its lanes.
type claimRun struct {
	w        *Work
	dir      string
	claims   *claims
	order    []int
	own      []bool
	progress func(done, total int)
	stop     func() bool

	mu     sync.Mutex
	done   []bool // by place in order
	ndone  int
	cursor int
	failed error
	res    Claimed
}

func (cr *claimRun) stopped() bool { return cr.stop != nil && cr.stop() }

// lane runs items one after another until none is left to claim, waiting poll between
// passes that found every unfinished item held by another worker.
func (cr *claimRun) lane(poll time.Duration) {
	for {
		k, more := cr.next()
		if k < 0 {
			if !more {
				return
			}
			time.Sleep(poll)
			continue
		}
		i := cr.order[k]
		err := cr.w.runOne(cr.dir, i)
		cr.claims.release(i)
		cr.finish(k, err)
	}
}

// next claims the next item in order that is neither finished nor held, or returns -1
// at the end of a pass (more: some item is still unfinished), or when everything is
// done, or on failure or interrupt.
func (cr *claimRun) next() (int, bool) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	for ; cr.cursor < len(cr.order); cr.cursor++ {
		if cr.failed != nil || cr.stopped() {
			return -1, false
		}
		k := cr.cursor
		if cr.done[k] {
			continue
		}
		taken, err := cr.take(k)
		if err != nil {
			cr.failed = err
			return -1, false
		}
		if taken {
			cr.cursor++
			return k, true
		}
	}
	cr.cursor = 0
	return -1, cr.ndone < len(cr.order) && cr.failed == nil && !cr.stopped()
}

// take claims the item at place k in order unless its file is there (then it is done)
// or a live worker holds it; it reports whether this worker now runs it.
func (cr *claimRun) take(k int) (bool, error) {
	i := cr.order[k]
	file := cr.w.Manifest.File(cr.dir, i)
	if exists(file) {
		cr.markDone(k)
		if cr.own[i] {
			cr.res.Skipped++
		}
		return false, nil
	}
	ok, err := cr.claims.take(i)
	if err != nil || !ok {
		return false, err
	}
	if exists(file) { // finished between the two looks
		cr.claims.release(i)
		cr.markDone(k)
		return false, nil
	}
	return true, nil
}

func (cr *claimRun) markDone(k int) {
	cr.done[k] = true
	cr.ndone++
}

// finish records the item at place k in order as run (or its failure).
func (cr *claimRun) finish(k int, err error) {
	cr.mu.Lock()
	defer cr.mu.Unlock()
	if err != nil {
		if cr.failed == nil {
			cr.failed = err
		}
		return
	}
	cr.markDone(k)
	cr.res.Ran++
	if !cr.own[cr.order[k]] {
		cr.res.Taken++
	}
	if cr.progress != nil {
		cr.progress(cr.ndone, len(cr.order))
	}
}

func exists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// config is the sweep's or capacity search's Config.
func (w *Work) config() *sweep.Config {
	if w.sweep != nil {
		return w.sweep.Config()
	}
	return &w.capacity.Config().Config
}

// runOne runs item i and writes its file.
func (w *Work) runOne(dir string, i int) error {
	if w.sweep != nil {
		return w.sweep.RunItems([]int{i}, func(i int, r *metrics.Run) error {
			return w.writeItem(dir, w.sweepItem(i, r))
		})
	}
	return w.capacity.RunItems([]int{i}, func(i int, _ capacity.Answer) error {
		return w.writeItem(dir, w.capacityItem(i))
	})
}
