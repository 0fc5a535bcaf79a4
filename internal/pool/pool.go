// Package pool runs independent jobs on a bounded number of goroutines. It is the one
// worker pool of the commands that run many simulations: variants, sweep points and
// capacity searches.
package pool

import (
	"sync"
	"sync/atomic"
)

// Pool bounds how many jobs run at once, across every call of Each on it, nested ones
// included: a job holds one of the pool's slots while it runs. Stop, when set, is polled
// before each job starts; once it reports true, no further job starts.
type Pool struct {
	slots chan struct{}
	stop  func() bool
}

// New returns a pool of workers slots (at least 1). stop may be nil.
func New(workers int, stop func() bool) *Pool {
	return &Pool{slots: make(chan struct{}, max(workers, 1)), stop: stop}
}

// Stopped reports whether the pool's stop function has reported true.
func (p *Pool) Stopped() bool { return p.stop != nil && p.stop() }

// Each calls job(i) for every i in [0, n), each holding a slot, at most as many at once as
// the pool has slots (fewer when other calls hold some), and returns when every call has
// returned. Jobs start in index order; a job that finds the pool stopped is skipped. Each
// job should write its result to its own index, so results do not depend on the order in
// which the jobs finish.
func (p *Pool) Each(n int, job func(i int)) {
	var next atomic.Int64
	var wg sync.WaitGroup
	for range min(n, cap(p.slots)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				p.slots <- struct{}{}
				if !p.Stopped() {
					job(i)
				}
				<-p.slots
			}
		}()
	}
	wg.Wait()
}

// Fork calls f(i) for every i in [0, n) on goroutines of its own that hold no slot, and
// returns when every call has returned. It is for work that only waits on Each (a capacity
// search whose evaluations run their replications on the pool), so that the slots go to
// the simulations themselves and nesting cannot deadlock.
func (p *Pool) Fork(n int, f func(i int)) {
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			f(i)
		}()
	}
	wg.Wait()
}

// Map calls job(i) for every i in [0, n) on p and returns the results by index; a skipped
// job leaves the zero value.
func Map[T any](p *Pool, n int, job func(i int) T) []T {
	out := make([]T, n)
	p.Each(n, func(i int) { out[i] = job(i) })
	return out
}
