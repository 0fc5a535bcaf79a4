package metrics

import "github.com/shardsim/shardsim/sim"

// A story's claims are tested against figures of this package: each measure below is one
// of the claim vocabulary (spec's [[claims]] measure), computed from a run as the other
// readers compute it.

// RateAt returns stream i's requests offered (completed false) or completed per second in
// the window of r that holds t; nil when t is outside the run or the window has no span.
func RateAt(r *sim.Result, i int, t sim.Time, completed bool) *float64 {
	if r.Window <= 0 || t < 0 || int(t/r.Window) >= r.Windows {
		return nil
	}
	sw := StreamWindowOf(r, i, int(t/r.Window))
	if completed {
		return sw.CompletedRate
	}
	return sw.OfferedRate
}

// P99Crossing returns when stream i's p99 first passed ms: the end of the first window
// whose p99 is above it, or, when a detail range covers that, the end of the first fine
// window at or before it whose p99 is above it (FineCrossing); and whether it ever did.
// Fine reports which grain the time is at.
func P99Crossing(r *sim.Result, i int, ms float64) (t sim.Time, fine, ok bool) {
	st := &r.Streams[i]
	for w := 0; w < r.Windows && w < len(st.Win); w++ {
		if q := WindowQuantile(&st.Win[w], 0.99); q != nil && *q > ms {
			end := min(sim.Time(w+1)*r.Window, r.Duration)
			if f, ok := FineCrossing(r, i, ms, 0); ok && f <= end {
				return f, true, true
			}
			return end, false, true
		}
	}
	return 0, false, false
}

// FirstRetry returns the start of the first window in which stream i sent a retry, and
// whether it sent one.
func FirstRetry(r *sim.Result, i int) (sim.Time, bool) {
	rs := RetriesOf(r, i)
	if rs.First < 0 {
		return 0, false
	}
	return sim.Time(rs.First) * r.Window, true
}

// TopRowShare returns the busiest shard's share of the rows written over the run (0..1),
// that shard, and the share every shard would have if they wrote evenly; ok is false when
// nothing was written.
func TopRowShare(r *sim.Result) (share float64, shard int, even float64, ok bool) {
	var total, top int64
	for s, sh := range r.Shards {
		total += sh.Rows
		if sh.Rows > top {
			top, shard = sh.Rows, s
		}
	}
	if total == 0 || len(r.Shards) == 0 {
		return 0, 0, 0, false
	}
	return float64(top) / float64(total), shard, 1 / float64(len(r.Shards)), true
}

// StreamP99 returns stream i's p99 over the requests issued after the warmup, in ms (nil
// when none completed), as Stream's Latency gives it.
func StreamP99(r *sim.Result, i int) *float64 {
	s := StreamOf(&r.Streams[i])
	return s.Latency.P99
}

// Partitions returns the partitions stream i's requests visited, on average.
func Partitions(r *sim.Result, i int) float64 {
	s := StreamOf(&r.Streams[i])
	return s.Fanout.Partitions
}
