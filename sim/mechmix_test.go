package sim_test

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/cache"
	"github.com/shardsim/shardsim/mechanisms/latch"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/locks"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/mechanisms/pool"
	"github.com/shardsim/shardsim/mechanisms/replicas"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// mixModel puts the page latch and connection pools together with every mechanism of the
// request path they meet: client timeouts, retries with backoff and a queueing rate limit
// (switched to a rejecting one, then lifted, by actions), row locks, partition limits,
// replicas, full queues, the cache, a closed-loop stream and a warmup. Two seconds on
// three 2-core nodes: a second of CPU at most.
func mixModel(seed uint64) *sim.Model {
	scheme := keyspace.NewModulo(6)
	twoParts := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}, {Kind: keyspace.FieldPart, Field: 1}}}
	m := &sim.Model{
		Seed: seed, Duration: 2 * sim.Second, Warmup: 200 * sim.Millisecond, Window: 250 * sim.Millisecond, Network: 200 * sim.Microsecond,
		Nodes:     []sim.Node{{Cores: 1, QueueLimit: 3}, {Cores: 1, QueueLimit: 3}, {Cores: 1, QueueLimit: 3}},
		ShardNode: []int{0, 1, 2, 0, 1, 2},
		Streams: []sim.Stream{
			{
				Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond,
				Arrivals: workload.NewPoisson(rate(3000)),
				Fields:   []workload.Generator{workload.NewUniform(4), workload.NewSequence()},
				Planner:  keyspace.NewPointPlanner(twoParts, scheme, false), KeyFields: []int{0, 1},
				Client: sim.Client{Timeout: 1200 * sim.Microsecond, Retries: 2, Backoff: sim.Millisecond, BackoffMax: 4 * sim.Millisecond,
					Limit: &sim.Limit{Rate: 2500, Burst: 20, Queue: true}},
			},
			{
				Name: "r", Op: sim.Read, Cost: 150 * sim.Microsecond,
				Arrivals: workload.NewPoisson(rate(4000)),
				Fields:   []workload.Generator{workload.NewZipf(2000, 1.1, false), nil},
				Planner:  keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, scheme, true), KeyFields: []int{0},
				Client: sim.Client{Timeout: 800 * sim.Microsecond, Retries: 1, Backoff: sim.Millisecond, BackoffMax: sim.Millisecond},
			},
			{
				Name: "c", Op: sim.Write, Cost: 80 * sim.Microsecond,
				Clients: 12, Think: sim.Delay{Kind: sim.Exponential, Mean: sim.Millisecond},
				Fields:  []workload.Generator{workload.NewUniform(2), workload.NewUniform(1)},
				Planner: keyspace.NewPointPlanner(twoParts, scheme, false), KeyFields: []int{0, 1},
				Client: sim.Client{Timeout: 3 * sim.Millisecond, Retries: 1},
			},
		},
		Mechanisms: []sim.Setting{
			replicas.Replicas{Followers: 1, ApplyCost: []sim.Time{50 * sim.Microsecond, 0, 40 * sim.Microsecond}},
			cache.Cache{Settings: cache.Settings{Capacity: 200, TTL: 50 * sim.Millisecond, HitCost: 50 * sim.Microsecond, SingleFlight: true, StaleWhileRevalidate: 20 * sim.Millisecond},
				Streams: []int{1}},
			latch.PageLatch{Hold: 90 * sim.Microsecond, Rows: 10},
			limits.Limits{Settings: scenario.PartitionLimits{WriteUnits: 2500, ReadUnits: 3000, Burst: 100 * sim.Millisecond}},
			locks.RowLocks{Streams: []locks.Stream{
				{Hold: sim.Delay{Kind: sim.Exponential, Mean: 40 * sim.Microsecond}, Timeout: 3 * sim.Millisecond}, {},
				{Hold: sim.Delay{Kind: sim.Constant, Mean: 300 * sim.Microsecond}, Timeout: 400 * sim.Microsecond}}},
			pool.Pool{Stream: 0, Size: 6}, pool.Pool{Stream: 1, Size: 3}, pool.Pool{Stream: 2, Size: 5},
			operator.Actions{
				{At: 700 * sim.Millisecond, Change: operator.ClientLimit, Client: true, Stream: 0, Limit: &sim.Limit{Rate: 1500, Burst: 5}},
				{At: 1400 * sim.Millisecond, Change: operator.ClientLimit, Client: true, Stream: 0},
			}},
	}
	return m
}

// TestMechanismsMixed: with the page latch and the pools among every other mechanism of the
// request path, every request has one outcome, the backlog the engine counts returns to
// zero once the run has drained (each wait counted with Core.Hold is uncounted when it
// ends), and the same seed gives the same run. (The latch's and the pools' own state after
// a drained run: mechanisms/latch and mechanisms/pool.)
func TestMechanismsMixed(t *testing.T) {
	r, backlog := sim.RunBacklog(mixModel(3))
	mechtest.Conserve(t, r)
	if backlog != 0 {
		t.Errorf("backlog %d after the run drained, want 0", backlog)
	}
	var failed int64
	for _, st := range r.Streams {
		failed += st.TimedOut + st.Rejected + st.Failed[limits.Throttled] + st.Limited + st.Failed[locks.TimedOut]
		if len(st.Waits) == 0 {
			t.Errorf("stream %s: no waits reported", st.Name)
		}
	}
	if failed == 0 {
		t.Error("no request failed: the model does not exercise the failure paths")
	}
	t.Log(fingerprint(r))
	if a, b := fingerprint(r), fingerprint(sim.Run(mixModel(3))); a != b {
		t.Errorf("two runs of one seed differ:\n%s\n%s", a, b)
	}
}

// rate is a constant rate r per second from the start.
func rate(r float64) workload.Schedule { return workload.Schedule{{At: 0, Rate: r}} }

// fingerprint is a run's outcome per stream, its waits included, for comparing two runs.
func fingerprint(r *sim.Result) string {
	s := ""
	for _, st := range r.Streams {
		s += fmt.Sprintf("%s off %d ok %d rej %d thr %d to %d lim %d lock %d retries %d lat %.0f;", st.Name, st.Offered, st.Completed,
			st.Rejected, st.Failed[limits.Throttled], st.TimedOut, st.Limited, st.Failed[locks.TimedOut], st.Retries, st.LatencySum)
		for _, w := range st.Waits {
			s += fmt.Sprintf(" %s %d/%d %.0f %d", w.Name, w.Queued, w.Asked, w.Sum, w.Max)
		}
	}
	return s
}

// TestWatchFailedCountsRegisteredCauses: Watch.Failed, which a capacity search reads to
// settle a run early as passing, counts a request that failed for a cause a mechanism
// registered (sim.RegisterCause) as it counts a full queue's: here every failure is a row
// lock's timeout (3,000 writes/s to one row held 0.5 ms each, given up after 1 ms).
func TestWatchFailedCountsRegisteredCauses(t *testing.T) {
	m := &sim.Model{
		Seed: 5, Duration: 3 * sim.Second, Window: sim.Second, Network: 200 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 4}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: 50 * sim.Microsecond,
			Arrivals: workload.NewPoisson(rate(3000)),
			Fields:   []workload.Generator{workload.NewUniform(1)},
			Planner:  keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, keyspace.NewModulo(1), false),
		}},
		Mechanisms: []sim.Setting{locks.RowLocks{Streams: []locks.Stream{{Hold: sim.Delay{Kind: sim.Constant, Mean: 500 * sim.Microsecond}, Timeout: sim.Millisecond}}}},
	}
	var watched int64
	m.Watch = func(w sim.Watch) bool {
		watched = max(watched, w.Failed(0))
		return false
	}
	st := sim.Run(m).Streams[0]
	if st.Failed[locks.TimedOut] == 0 || st.Failed[locks.TimedOut] != st.Offered-st.Completed {
		t.Fatalf("%d of %d writes failed, %d for their lock: want lock timeouts only", st.Offered-st.Completed, st.Offered, st.Failed[locks.TimedOut])
	}
	if watched == 0 || watched > st.Failed[locks.TimedOut] {
		t.Errorf("Watch.Failed saw at most %d failed writes; the run failed %d for their lock", watched, st.Failed[locks.TimedOut])
	}
}
