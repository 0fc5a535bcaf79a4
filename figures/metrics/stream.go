package metrics

import (
	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/shardsim/shardsim/sim"
)

// Cause is why a request failed. Every failed request has exactly one cause: that of its
// last attempt.
type Cause uint8

// The causes of failure (docs/scenario.md, "What the numbers mean": errors).
const (
	Rejected  Cause = iota // a subrequest found its node's queue full
	Throttled              // a partition throughput limit turned it away
	TimedOut               // the client stopped waiting for it
	Limited                // the client's own rate limit turned it away
	Lock                   // a write waited longer than its lock_timeout for a row lock
	numCauses
)

// Causes lists every cause in the order outputs show them.
var Causes = [...]Cause{Rejected, Throttled, TimedOut, Limited, Lock}

// String is the cause's name in JSON and CSV: rejected, throttled, timed_out, limited, lock.
func (c Cause) String() string {
	switch c {
	case Rejected:
		return "rejected"
	case Throttled:
		return "throttled"
	case TimedOut:
		return "timed_out"
	case Limited:
		return "limited"
	case Lock:
		return "lock"
	}
	return "?"
}

// Failures counts failed requests by cause, indexed by Cause.
type Failures [numCauses]int64

// Total is the number of failed requests, over every cause.
func (f *Failures) Total() int64 {
	var n int64
	for _, x := range f {
		n += x
	}
	return n
}

// failuresOf are the failures of a stream or of a window: the core's own causes'
// counts, and the causes a mechanism registered with sim (sim.RegisterCause) under the
// name of the figures' cause (Throttled, Lock).
func failuresOf(rejected, timedOut, limited int64, by *sim.CauseCounts) Failures {
	var f Failures
	f[Rejected], f[TimedOut], f[Limited] = rejected, timedOut, limited
	f[Throttled] = by.Named(Throttled.String())
	f[Lock] = by.Named(Lock.String())
	return f
}

// WindowFailures are the failed requests of a stream's window, by cause.
func WindowFailures(wl *sim.WindowLatency) Failures {
	return failuresOf(wl.Rejected, wl.TimedOut, wl.Limited, &wl.Failed)
}

// add adds g's counts to f.
func (f *Failures) add(g *Failures) {
	for c := range f {
		f[c] += g[c]
	}
}

// Latency holds statistics of the latencies of a stream's completed requests, in
// milliseconds. Each is nil when no request completed. The quantiles come from the run's
// HdrHistogram (3 significant digits, so within 0.1% of the exact value) and are capped at
// Max, which is exact: a histogram quantile is the upper end of its bucket and could
// otherwise exceed the largest latency recorded.
type Latency struct {
	Mean, P50, P90, P95, P99, P999, Max *float64
}

// Fanout is how widely a stream's requests spread, over every request issued after the
// warmup: the mean number of subrequests (shards visited), the largest, and the mean number
// of partitions visited. Means are 0 when nothing was offered.
type Fanout struct {
	Mean       float64
	Max        int
	Partitions float64
}

// Stream is one stream's figures over the requests issued after the warmup.
type Stream struct {
	Name      string
	Op        sim.Op
	Offered   int64 // requests issued
	Completed int64 // requests that succeeded
	Failures  Failures
	Failed    int64   // Failures.Total()
	ErrorRate float64 // Failed / Offered, a fraction 0..1; 0 when nothing was offered
	Latency   Latency
	Fanout    Fanout
	// Locks is set for a stream whose writes take row locks.
	Locks *LockWaits
	// Rows is what the stream's scans read, when they read rows (a row_cost or a row
	// limit); nil otherwise.
	Rows *Rows
	// ShardRows are the rows the stream wrote to each shard (nil when the result did not
	// count them by stream); HotShard is the shard of its most written partition (-1
	// when none was counted).
	ShardRows []int64
	HotShard  int
	// Cache is the stream's use of the read cache (CacheOf); nil when it did not use it.
	Cache *CacheSummary
	// Waits are the waits of the mechanisms that held the stream's work back, before its
	// service or after it (a connection pool, a page latch, a commit flush), in the order the
	// run lists them.
	Waits []Wait
}

// Wait is one mechanism's waits of a stream's work, issued after the warmup: Asked went
// through it, Queued of them waited (Share: Queued/Asked, 0 when none asked); Mean, P99
// and Max in milliseconds over all of them, those that waited 0 included (nil when none
// asked).
type Wait struct {
	Name, Of       string
	Asked, Queued  int64
	Share          float64
	Mean, P99, Max *float64
	// Uncapped: what was waited for serves every waiter at once (sim.Wait.Uncapped), so
	// Share is no load on it and the bottleneck never names it.
	Uncapped bool
}

// waitsOf derives the stream's waits from its result.
func waitsOf(st *sim.StreamResult) []Wait {
	var out []Wait
	for _, w := range st.Waits {
		f := Wait{Name: w.Name, Of: w.Of, Asked: w.Asked, Queued: w.Queued, Share: rate(w.Queued, w.Asked), Uncapped: w.Uncapped}
		if w.Asked > 0 {
			mx := w.Max.Millis()
			f.Mean = ptr(min(w.Sum/float64(w.Asked)/float64(sim.Millisecond), mx))
			f.P99 = ptr(min(quantileMillis(w.Hist, 0.99), mx))
			f.Max = ptr(mx)
		}
		out = append(out, f)
	}
	return out
}

// LockWaits are a locked stream's row-lock figures, over the write subrequests of the
// requests issued after the warmup: the time they waited for their key's lock (what a
// database reports as row lock time), in milliseconds.
type LockWaits struct {
	Waits  int64   // subrequests that asked for a lock and got it or gave up
	Queued int64   // of them, the ones that found it held and queued
	Share  float64 // Queued / Waits (0 when none)
	// Mean, P99 and Max wait (nil when no subrequest asked); a write that found the lock
	// free waited 0, one that gave up waited its lock_timeout.
	Mean, P99, Max *float64
	// Hot are the keys writes queued for most, most first; Count overstates a key's
	// queued writes by at most Error.
	Hot []sim.KeyCount
	// HoldMean is the mean time in ms a row stayed locked per write (nil when no lock was
	// granted): one row's lock passes at most 1/HoldMean writes a second.
	HoldMean *float64
	// HotShare is the share of the stream's counted writes that went to its most written
	// row (the sketch's estimate; 0 when it recorded none), and HotRate the lock requests
	// that row received per second (its share of Waits, over the time measured after the
	// warmup).
	HotShare, HotRate float64
	// Busy is the load offered to the hottest row's lock: HotRate × HoldMean, the fraction
	// of the time it would be held. At 1 or more the row is offered more writes than its
	// lock passes and its queue grows for as long as the load lasts.
	Busy float64
	// QueueHead says the stream claims a job queue's oldest job (LockCounts.QueueHead):
	// the hottest row is a queue's head, which every claim of the queue waits for.
	QueueHead bool
}

// lockLoad fills in l's hold and the load of the hottest row's lock, for a stream whose
// figures cover span and whose row locks recorded n.
func (l *LockWaits) lockLoad(st *sim.StreamResult, n *LockCounts, span sim.Time) {
	if n.Holds == 0 {
		return
	}
	hold := n.HoldSum / float64(n.Holds) / float64(sim.Millisecond)
	l.HoldMean = ptr(hold)
	counted := st.Offered
	if st.SampledRequests > 0 {
		counted = st.SampledRequests
	}
	switch {
	case n.OwnRows && n.Waits > 0:
		// Every claim locked a job of its own: the most written row took one write.
		l.HotShare = 1 / float64(n.Waits)
	case len(st.HotPartitions) > 0 && counted > 0:
		l.HotShare = min(1, float64(st.HotPartitions[0].Count)/float64(counted))
	}
	if secs := span.Seconds(); secs > 0 {
		// The writes that asked for a lock: a partition limit turns writes away before they
		// reach the row.
		l.HotRate = l.HotShare * float64(n.Waits) / secs
	}
	l.Busy = l.HotRate * hold / 1000
}

// Rows is the rows a scan stream read over the requests issued after the warmup: in all,
// and per request (0 when nothing was offered).
type Rows struct {
	Read int64
	Mean float64
}

// StreamOf derives stream i's figures from r.
func StreamOf(r *sim.Result, i int) Stream {
	st := &r.Streams[i]
	s := Stream{Name: st.Name, Op: st.Op, Offered: st.Offered, Completed: st.Completed, ShardRows: st.ShardRows, HotShard: -1}
	if len(st.HotPartitions) > 0 {
		s.HotShard = st.HotPartitions[0].Shard
	}
	s.Failures = failuresOf(st.Rejected, st.TimedOut, st.Limited, &st.Failed)
	s.Locks = locksOf(LockCountsOf(r, i))
	s.Cache = CacheOf(r, i)
	s.Waits = waitsOf(st)
	s.Failed = s.Failures.Total()
	s.ErrorRate = rate(s.Failed, s.Offered)
	s.Latency = latencyOf(st)
	s.Fanout.Max = st.MaxFanout
	if st.Offered > 0 {
		s.Fanout.Mean = float64(st.Subrequests) / float64(st.Offered)
		s.Fanout.Partitions = float64(st.Partitions) / float64(st.Offered)
	}
	if st.RowsModeled {
		s.Rows = &Rows{Read: st.RowsRead, Mean: rate(st.RowsRead, st.Offered)}
	}
	return s
}

// rate is n/of, or 0 when of is 0.
func rate(n, of int64) float64 {
	if of <= 0 {
		return 0
	}
	return float64(n) / float64(of)
}

// latencyOf computes the latency statistics of a stream's completed requests.
func latencyOf(st *sim.StreamResult) Latency {
	h := st.Latency
	if h == nil || h.TotalCount() == 0 {
		return Latency{}
	}
	mx := st.LatencyMax.Millis()
	q := func(p float64) *float64 { return ptr(min(quantileMillis(h, p), mx)) }
	return Latency{
		Mean: ptr(min(st.LatencySum/float64(h.TotalCount())/float64(sim.Millisecond), mx)),
		P50:  q(0.50), P90: q(0.90), P95: q(0.95), P99: q(0.99), P999: q(0.999),
		Max: ptr(mx),
	}
}

// quantileMillis is the latency at quantile p (0..1) of a histogram of microseconds, in ms.
func quantileMillis(h *hdrhistogram.Histogram, p float64) float64 {
	return float64(h.ValueAtQuantile(p*100)) / 1000
}

func ptr(x float64) *float64 { return &x }

// locksOf derives a stream's lock figures from what its row locks recorded, n; nil when
// it took no locks.
func locksOf(n *LockCounts) *LockWaits {
	if n == nil || n.Wait == nil {
		return nil
	}
	l := &LockWaits{Waits: n.Waits, Queued: n.Waited, Share: rate(n.Waited, n.Waits), Hot: n.Hot, QueueHead: n.QueueHead}
	if n.Waits > 0 {
		mx := n.WaitMax.Millis()
		l.Mean = ptr(min(n.WaitSum/float64(n.Waits)/float64(sim.Millisecond), mx))
		l.P99 = ptr(min(quantileMillis(n.Wait, 0.99), mx))
		l.Max = ptr(mx)
	}
	return l
}
