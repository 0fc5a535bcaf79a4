package sim

import (
	"math/rand/v2"
	"runtime"

	"github.com/shardsim/shardsim/workload"
)

// Arrivals drawn ahead on another core.
//
// An open-loop stream's arrival times are a function of its arrival process and its own
// random stream (streamState.arr) alone: nothing the engine does feeds back into them.
// Once a stream has drawn aheadAfter arrivals itself, and the process has a core to spare
// (GOMAXPROCS above 1), a producer goroutine takes the process and the random stream over
// and draws the rest of the stream's arrivals into chunks, which the engine reads in
// order. The calls of Next are the same calls, with the same arguments, in the same order,
// as arrivalAfter would make, so every arrival time, and so every result, is the same to
// the bit whichever goroutine draws them; only the time of the draws moves off the
// engine's core. A non-homogeneous Poisson arrival costs the engine 20 to 35 ns (a chain
// of dependent divisions and a square root); reading it from a chunk costs about one.
//
// The chunks are allocated once, when the producer starts, and circulate between two
// channels: nothing is allocated per request. The producer is at most aheadChunks chunks
// ahead, and stops at the end of the run's time or when the run ends (stopFeeds).

const (
	// aheadAfter is how many arrivals a stream draws itself before a producer takes
	// over, so that short streams and short runs start no goroutine.
	aheadAfter = 1 << 14
	aheadChunk = 4096 // arrival times per chunk: 32 KB, and a hand-over per 4,096 arrivals
	// aheadChunks chunks circulate: one the engine reads, the others filled ahead.
	aheadChunks = 4
)

// aheadOn reports whether streams may get producers: a second core to run them on.
// Tests switch it.
var aheadOn = func() bool { return runtime.GOMAXPROCS(0) > 1 }

// arrivalFeed is the engine's end of a stream's producer.
type arrivalFeed struct {
	full chan []Time   // filled chunks, in the order of their arrivals
	free chan []Time   // chunks read to the end, for the producer to fill again
	quit chan struct{} // closed when the run ends
	done chan struct{} // closed by the producer when it has stopped
	cur  []Time        // the chunk being read
	pos  int
}

// next returns the stream's next arrival time (never after the end of the run).
func (f *arrivalFeed) next() Time {
	if f.pos == len(f.cur) {
		f.refill()
	}
	t := f.cur[f.pos]
	f.pos++
	return t
}

// refill hands back the chunk read to its end and waits for the next one.
func (f *arrivalFeed) refill() {
	if f.cur != nil {
		f.free <- f.cur // never blocks: free holds every chunk
	}
	f.cur, f.pos = <-f.full, 0
}

// aheadable reports whether a stream's arrivals may be drawn ahead: an open-loop stream
// whose arrival process is one of the workload package's, whose state is its own. (A
// replayed log's source also feeds the stream's fields, so its arrivals must be drawn in
// step with them.)
func aheadable(st *streamState) bool {
	if st.closed {
		return false
	}
	switch st.s.Arrivals.(type) {
	case *workload.Poisson, *workload.UniformArrivals, *workload.BurstPoisson, *workload.BurstUniform:
		return true
	}
	return false
}

// startFeed gives stream st a producer, which continues its arrivals from t, the last
// one drawn.
func (e *engine) startFeed(st *streamState, t Time) {
	f := &arrivalFeed{
		full: make(chan []Time, aheadChunks),
		free: make(chan []Time, aheadChunks),
		quit: make(chan struct{}),
		done: make(chan struct{}),
	}
	for range aheadChunks {
		f.free <- make([]Time, aheadChunk)
	}
	st.feed = f
	e.feeds = append(e.feeds, f)
	go produce(f, st.s.Arrivals, st.arr, t, e.m.Duration)
}

// produce draws the arrivals after t into f's chunks, as arrivalAfter would: each call
// continues from the last time returned, and the first time at or after the end of the
// run ends the stream (never). It stops after the chunk holding that, or on quit.
func produce(f *arrivalFeed, a workload.Arrivals, r *rand.Rand, t, end Time) {
	defer close(f.done)
	for t != never {
		var buf []Time
		select {
		case buf = <-f.free:
		case <-f.quit:
			return
		}
		for i := range buf {
			if t != never {
				if t = Time(a.Next(r, int64(t))); t >= end {
					t = never
				}
			}
			buf[i] = t
		}
		f.full <- buf // never blocks: full has room for every chunk
	}
}

// stopFeeds stops the run's producers and waits for them, so that no goroutine outlives
// the run or touches its arrival processes after it.
func (e *engine) stopFeeds() {
	for _, f := range e.feeds {
		close(f.quit)
	}
	for _, f := range e.feeds {
		<-f.done
	}
	e.feeds = nil
}
