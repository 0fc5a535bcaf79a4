package metrics

import (
	"fmt"
	"math"

	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
)

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
	s := StreamOf(r, i)
	return s.Latency.P99
}

// Partitions returns the partitions stream i's requests visited, on average.
func Partitions(r *sim.Result, i int) float64 {
	s := StreamOf(r, i)
	return s.Fanout.Partitions
}

// claimRun is a claim beside the runs that measure it: its variant's result r and, for
// p99_ratio, its base's rb; window is the scenario's window and clock writes a time of
// the run as the report does.
type claimRun struct {
	c      *Claim
	i      int
	r, rb  *sim.Result
	window sim.Time
	clock  func(sim.Time) string
}

// claimMeasures are the measures a claim names (docs/stories.md), each the run's figure
// for it (nil when there is none) and a note on where it was measured.
var claimMeasures = map[string]func(*claimRun) (*float64, string){
	"offered_rate":    (*claimRun).rate,
	"completed_rate":  (*claimRun).rate,
	"p99_crossing":    (*claimRun).p99Crossing,
	"first_retry":     (*claimRun).firstRetry,
	"top_shard_share": (*claimRun).topShardShare,
	"partitions":      (*claimRun).partitions,
	"p99":             (*claimRun).p99,
	"p99_ratio":       (*claimRun).p99Ratio,
}

// MeasureClaim returns the run's figure for claim c on its variant's result r (and its
// base's rb; nil when the claim has none) and a note on it; the figure is nil when the
// run cannot say. window is the scenario's window, clock writes a time of the run.
func MeasureClaim(c *Claim, r, rb *sim.Result, window sim.Time, clock func(sim.Time) string) (*float64, string) {
	i := c.StreamIndex
	if c.Measure != "top_shard_share" && (i < 0 || i >= len(r.Streams) || c.Measure == "p99_ratio" && i >= len(rb.Streams)) {
		return nil, "not measured: the variant has no such stream"
	}
	measure, ok := claimMeasures[c.Measure]
	if !ok {
		panic("metrics: unknown claim measure " + c.Measure)
	}
	return measure(&claimRun{c: c, i: i, r: r, rb: rb, window: window, clock: clock})
}

// rate is offered_rate and completed_rate: the stream's rate in the window of the claim's time.
func (m *claimRun) rate() (*float64, string) {
	c := m.c
	if c.At < 0 {
		return nil, fmt.Sprintf("not measured: the run starts after %s", m.clock(c.At))
	}
	if c.At >= m.r.Duration {
		return nil, fmt.Sprintf("not measured: the run ends before %s", m.clock(c.At))
	}
	w := sim.Time(int(c.At/m.window)) * m.window
	return RateAt(m.r, m.i, c.At, c.Measure == "completed_rate"), fmt.Sprintf("%s in the window of %s", c.Stream, m.clock(w))
}

// p99Crossing is when the stream's p99 first passed the claim's threshold.
func (m *claimRun) p99Crossing() (*float64, string) {
	c := m.c
	t, fine, ok := P99Crossing(m.r, m.i, c.Threshold.Millis())
	if !ok {
		return nil, fmt.Sprintf("%s's p99 never passed %s", c.Stream, c.Threshold)
	}
	grain := m.window
	if fine {
		grain = m.r.Detail.Window
	}
	return ptr(t.Seconds()), fmt.Sprintf("%s's p99 passed %s in a %s window ending then", c.Stream, c.Threshold, units.Duration(grain))
}

// firstRetry is when the stream sent its first retries.
func (m *claimRun) firstRetry() (*float64, string) {
	t, ok := FirstRetry(m.r, m.i)
	if !ok {
		return nil, fmt.Sprintf("%s sent no retry", m.c.Stream)
	}
	return ptr(t.Seconds()), fmt.Sprintf("%s's first retries, in the window of %s", m.c.Stream, m.clock(t))
}

// topShardShare is the percentage of the rows the most written shard took.
func (m *claimRun) topShardShare() (*float64, string) {
	share, shard, even, ok := TopRowShare(m.r)
	if !ok {
		return nil, "no row was written"
	}
	return ptr(100 * share), fmt.Sprintf("shard %s; %d even shards would write %.1f%% each", ShardName(IndexLayouts(m.r), shard), len(m.r.Shards), 100*even)
}

// partitions is the partitions a request of the stream visits on average.
func (m *claimRun) partitions() (*float64, string) {
	return ptr(Partitions(m.r, m.i)), fmt.Sprintf("%s, per request", m.c.Stream)
}

// p99 is the stream's p99 over the run, in milliseconds.
func (m *claimRun) p99() (*float64, string) {
	p := StreamP99(m.r, m.i)
	if p == nil {
		return nil, fmt.Sprintf("no request of %s completed", m.c.Stream)
	}
	return p, fmt.Sprintf("%s over the run", m.c.Stream)
}

// p99Ratio is the stream's p99 over its p99 in the claim's base variant.
func (m *claimRun) p99Ratio() (*float64, string) {
	a, b := StreamP99(m.r, m.i), StreamP99(m.rb, m.i)
	if a == nil || b == nil || *b == 0 {
		return nil, fmt.Sprintf("no p99 of %s in one of the variants", m.c.Stream)
	}
	return ptr(*a / *b), fmt.Sprintf("%s's p99 %s ms against %s ms in %s", m.c.Stream, Ms(*a), Ms(*b), m.c.BaseName)
}

// Agrees reports whether the measured value m bears claim c out: within its tolerance of
// the claim's value (about), or on the right side of it (at_most, at_least).
func Agrees(c *Claim, m float64) bool {
	v := c.Value
	switch c.Agree {
	case "at_most":
		return m <= v
	case "at_least":
		return m >= v
	}
	if c.Time {
		return math.Abs(m-v) <= c.WithinTime.Seconds()
	}
	return math.Abs(m-v) <= c.Within*math.Abs(v)
}
