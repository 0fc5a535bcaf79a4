package locks

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// wakeModel is c closed-loop clients writing one row with no think time and no network:
// each waits for the row's lock, holds it for a constant hold, then spends cost of CPU on
// one of c cores (no CPU queue) and issues its next write at once. Every release of the
// row costs wake for each waiter it finds (Stream.Wake). The first second is warmup.
func wakeModel(seed uint64, dur sim.Time, c int, hold, cost, wake sim.Time) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	return &sim.Model{
		Seed: seed, Duration: dur, Warmup: sim.Second, Window: sim.Second,
		Nodes: []sim.Node{{Cores: c}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: cost, Service: sim.Service{Kind: sim.Constant},
			Fields:  []workload.Generator{workload.NewUniform(1)},
			Planner: keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
			Clients: c, Think: sim.Delay{Kind: sim.Constant},
		}},
		Mechanisms: []sim.Setting{RowLocks{Streams: []Stream{{Hold: sim.Delay{Kind: sim.Constant, Mean: hold}, Wake: wake}}}},
	}
}

// TestWakeCostClosed holds lock_wake_cost to its closed form: C closed-loop clients with
// no think time and no network write one row, holding its lock a constant L = 1 ms, then
// spending 10 us of CPU (small against L, on C cores). A client is back at the row 10 us
// after its release, while the hand-off or the next hold still runs, so every release
// finds the other C - 1 clients waiting and the row serves exactly
// X = 1 / (L + (C - 1) w) writes a second; by Little's law each client's cycle is C / X,
// so its mean wait for the lock is C / X - L - 10 us. With w = 15 us: 985.2, 956.9, 905.0
// and 682.6 writes/s for C = 2, 4, 8 and 32, where without the wake cost the row serves
// 1,000 at every C. Seed 1, 20 s after 1 s of warmup (13,600 to 19,700 writes); the model
// is deterministic, so the only error is the writes cut at the window's edges (one in
// 13,600); tolerance 0.1% on the throughput and on the mean wait.
func TestWakeCostClosed(t *testing.T) {
	const hold, cost, wake = sim.Millisecond, 10 * sim.Microsecond, 15 * sim.Microsecond
	figs := map[string]string{}
	for _, c := range []int{2, 4, 8, 32} {
		for _, w := range []sim.Time{0, wake} {
			m := wakeModel(1, 21*sim.Second, c, hold, cost, w)
			r := sim.Run(m)
			x := 1 / (hold + sim.Time(c-1)*w).Seconds()
			wait := float64(c)/x - (hold + cost).Seconds()
			got, gotWait := claimsPerSecond(m, r), meanLockWait(lockCounts(t, r, 0))
			msg := fmt.Sprintf("C = %d, w = %v: %.2f writes/s (1/(L + (C-1) w) = %.2f), mean lock wait %.4f ms (C/X - L - cost = %.4f)",
				c, w, got, x, gotWait*1e3, wait*1e3)
			if math.Abs(got-x)/x > 0.001 || math.Abs(gotWait-wait)/wait > 0.001 {
				t.Error(msg)
			} else {
				t.Log(msg)
			}
			if w > 0 {
				figs[fmt.Sprintf("wake.x%d", c)], figs[fmt.Sprintf("wake.theory%d", c)] = mechtest.Grouped1(got), mechtest.Grouped1(x)
			} else {
				figs[fmt.Sprintf("wake.flat%d", c)] = mechtest.Grouped1(got)
			}
		}
	}
	mechtest.DocFigures(t, "wake", figs)
}

// TestWakeCostAllocatesNothing: the hand-off allocates nothing per write
// (mechtest.NoAllocs), on TestLocksAllocateNothing's Zipf-popular rows with a 1 ms lock
// timeout and a 20 us wake cost, so waiters leave the rows' lists from anywhere in them
// while others are handed the lock; a run of the same model loses no write
// (mechtest.Conserve).
func TestWakeCostAllocatesNothing(t *testing.T) {
	zipf := func(dur sim.Time) *sim.Model {
		m := withTimeout(lockModel(5, dur, 4, 10_000, 1_000_000, sim.Delay{Kind: sim.Exponential, Mean: 250 * sim.Microsecond}, 50*sim.Microsecond, 0), sim.Millisecond)
		m.Streams[0].Fields = []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)}
		m.Window = 100 * sim.Second
		set := m.Mechanisms[0].(RowLocks)
		set.Streams[0].Wake = 20 * sim.Microsecond
		return m
	}
	mechtest.NoAllocs(t, zipf(100*sim.Second))
	r := sim.Run(zipf(5 * sim.Second))
	if w, n := r.Streams[0], lockCounts(t, r, 0); n.Waited == 0 || w.Failed[TimedOut] == 0 {
		t.Errorf("%d writes queued for a lock, %d timed out: want both above 0", n.Waited, w.Failed[TimedOut])
	}
	mechtest.Conserve(t, r)
}
