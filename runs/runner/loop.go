// Package runner is shardsim's one run loop. `run` hands it a loaded scenario's variants,
// a sweep its items (a point, replication and variant each) and a capacity search the
// runs of its multiples; the loop runs them on internal/pool, at most Parallel at once,
// stops them on an interrupt, counts them for the progress bar, and hands each result on,
// one at a time, to the caller that turns it into figures through metrics (docs/architecture.md,
// "The way of the data").
package runner

import (
	"errors"
	"sync"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/pool"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// ErrInterrupted is returned by Each when the loop's Stop ended it.
var ErrInterrupted = errors.New("interrupted")

// Options says how a loop runs its simulations.
type Options struct {
	Parallel int // simulations at once (at least 1)
	// Stop, when set, interrupts the loop: running simulations stop early and, unless
	// Every, no new one starts.
	Stop func() bool
	// Progress, when set, is told after each simulation the number done and Total (0: not
	// known in advance; below 0: about -Total, an estimate).
	Progress func(done, total int)
	Total    int
	// Every runs every job even after an interrupt, each stopping early, and hands every
	// result on: `run` reports each variant of an interrupted run, marked partial.
	Every bool
	// EngineCores is how many cores one simulation may use (sim.RunOn; its results do not
	// depend on it); 0 means one. A split run holds a copy of the run's series per worker
	// while it runs, and every worker draws every arrival, so the speed-up it buys is
	// bounded (docs/performance.md, "One run on many cores"); SimulateOn chooses per
	// simulation.
	EngineCores int
}

// engineCores is how many cores each simulation of a loop run as o says may use.
func (o Options) engineCores() int {
	return max(o.EngineCores, 1)
}

// Loop runs simulations on one pool. A job's result reaches its caller's done function
// one at a time, so done may write shared state without a lock of its own.
type Loop struct {
	o    Options
	pool *pool.Pool

	mu       sync.Mutex
	failed   error // done's first error: the loop stops
	finished int
}

// New returns a loop that runs as o says.
func New(o Options) *Loop {
	l := &Loop{o: o}
	stop := l.Stopped
	if o.Every {
		stop = nil // every job starts; the models themselves stop early
	}
	l.pool = pool.New(o.Parallel, stop)
	return l
}

// Interrupted reports whether the loop's Stop has reported true.
func (l *Loop) Interrupted() bool { return l.o.Stop != nil && l.o.Stop() }

// Stopped reports whether the loop was interrupted or a done function failed: no new
// simulation starts, and those running stop early.
func (l *Loop) Stopped() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed != nil || l.Interrupted()
}

// Simulate runs the model build returns on up to the loop's engine cores (sim.RunOn, which
// calls build once a worker); it stops early when the loop stops (the user's interrupt
// only, for a loop that runs Every job).
func (l *Loop) Simulate(build func() *sim.Model) *sim.Result {
	return l.SimulateOn(l.o.engineCores(), build)
}

// SimulateOn is Simulate on up to cores cores, whatever the loop's EngineCores.
func (l *Loop) SimulateOn(cores int, build func() *sim.Model) *sim.Result {
	return sim.RunOn(max(cores, 1), func() *sim.Model {
		m := build()
		m.Stop = l.Stopped
		if l.o.Every {
			m.Stop = l.o.Stop
		}
		return m
	})
}

// Reuse returns a build function for Simulate that returns m, already built, first, and
// then a new model of build at each call.
func Reuse(m *sim.Model, build func() *sim.Model) func() *sim.Model {
	return func() *sim.Model {
		if m == nil {
			return build()
		}
		built := m
		m = nil
		return built
	}
}

// Measure builds one simulation, runs it and returns its figures (metrics.Of). With
// lengths, a run too short for its hottest queue to settle is built again, longer, with
// the overrides of lengths.Overrides (Lengths.Lengthen).
func (l *Loop) Measure(build func(extra ...scenarios.Override) (*sim.Model, error), lengths *Lengths) (*metrics.Run, error) {
	measure := func(extra ...scenarios.Override) (*metrics.Run, error) {
		m, err := build(extra...)
		if err != nil {
			return nil, err
		}
		// Every build of the same overrides gives a model of the same scenario and seed,
		// and the first has built without an error.
		return metrics.Of(l.Simulate(Reuse(m, func() *sim.Model {
			m, _ := build(extra...)
			return m
		}))), nil
	}
	r, err := measure()
	if err != nil || lengths == nil {
		return r, err
	}
	return lengths.Lengthen(r, func(duration, warmup float64) (*metrics.Run, error) {
		return measure(lengths.Overrides(duration, warmup)...)
	})
}

// Fork calls f(i) for every i in [0, n) on goroutines that hold none of the pool's slots
// (pool.Fork): for work that waits on Each, such as capacity's searches, whose runs take
// the slots.
func (l *Loop) Fork(n int, f func(i int)) { l.pool.Fork(n, f) }

// Each runs job(i) for every i in [0, n) on the loop's pool and hands each result to
// done, one call at a time, as the jobs finish, counting each for Progress. A result of
// a job that ran while the loop stopped is not handed on (it may be cut short), unless
// the loop runs Every job. It returns done's first error, which stops the loop, else
// the jobs' errors (joined, by index), else ErrInterrupted when the loop was interrupted.
func Each[T any](l *Loop, n int, job func(i int) (T, error), done func(i int, r T) error) error {
	errs := make([]error, n)
	l.pool.Each(n, func(i int) {
		r, err := job(i)
		if err != nil {
			errs[i] = err
			return
		}
		l.hand(func() error { return done(i, r) })
	})
	switch failed := l.Err(); {
	case failed != nil:
		return failed
	case errors.Join(errs...) != nil:
		return errors.Join(errs...)
	case !l.o.Every && l.Interrupted():
		return ErrInterrupted
	}
	return nil
}

// hand hands a finished simulation's result on (done) unless the loop was interrupted
// (and runs not Every job), and counts it for Progress.
func (l *Loop) hand(done func() error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.o.Every && l.Interrupted() {
		return // the run may have been cut short
	}
	if !l.deliver(done) {
		return
	}
	l.finished++
	if l.o.Progress != nil {
		l.o.Progress(l.finished, l.o.Total)
	}
}

// Deliver calls done under the loop's lock, unless an earlier done failed; done's error
// stops the loop (Err). It is how work that Forks hands on what its runs made.
func (l *Loop) Deliver(done func() error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.deliver(done)
}

// deliver calls done, with the lock held, unless an earlier done failed, and reports
// whether it succeeded.
func (l *Loop) deliver(done func() error) bool {
	if l.failed != nil {
		return false
	}
	if err := done(); err != nil {
		l.failed = err
		return false
	}
	return true
}

// Err returns the first error of a done function, which stopped the loop.
func (l *Loop) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.failed
}
