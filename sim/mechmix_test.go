package sim

import (
	"fmt"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// mixModel puts the page latch and connection pools together with every mechanism of the
// request path they meet: client timeouts, retries with backoff and a queueing rate limit
// (switched to a rejecting one, then lifted, by actions), row locks, partition limits,
// replicas, full queues, the cache, a closed-loop stream and a warmup. Two seconds on
// three 2-core nodes: a second of CPU at most.
func mixModel(seed uint64) *Model {
	scheme := keyspace.NewModulo(6)
	twoParts := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}, {Kind: keyspace.FieldPart, Field: 1}}}
	m := &Model{
		Seed: seed, Duration: 2 * Second, Warmup: 200 * Millisecond, Window: 250 * Millisecond, Network: 200 * Microsecond,
		Nodes:     []Node{{Cores: 1, QueueLimit: 3}, {Cores: 1, QueueLimit: 3}, {Cores: 1, QueueLimit: 3}},
		ShardNode: []int{0, 1, 2, 0, 1, 2},
		Replicas:  1,
		Limits:    &PartitionLimits{WriteUnits: 2500, ReadUnits: 3000, Burst: 100 * Millisecond},
		Cache:     &Cache{Capacity: 200, TTL: 50 * Millisecond, HitCost: 50 * Microsecond, SingleFlight: true, StaleWhileRevalidate: 20 * Millisecond},
		Streams: []Stream{
			{
				Name: "w", Op: Write, Cost: 100 * Microsecond, ApplyCost: 50 * Microsecond,
				Arrivals: workload.NewPoisson(constRate(3000)),
				Fields:   []workload.Generator{workload.NewUniform(4), workload.NewSequence()},
				Planner:  keyspace.NewPointPlanner(twoParts, scheme, false), KeyFields: []int{0, 1},
				Client: Client{Timeout: 1200 * Microsecond, Retries: 2, Backoff: Millisecond, BackoffMax: 4 * Millisecond,
					Limit: &Limit{Rate: 2500, Burst: 20, Queue: true}},
				Lock: Delay{Kind: Exponential, Mean: 40 * Microsecond}, LockTimeout: 3 * Millisecond,
			},
			{
				Name: "r", Op: Read, Cost: 150 * Microsecond,
				Arrivals: workload.NewPoisson(constRate(4000)),
				Fields:   []workload.Generator{workload.NewZipf(2000, 1.1, false), nil},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, true), KeyFields: []int{0},
				UseCache: true, Client: Client{Timeout: 800 * Microsecond, Retries: 1, Backoff: Millisecond, BackoffMax: Millisecond},
			},
			{
				Name: "c", Op: Write, Cost: 80 * Microsecond, ApplyCost: 40 * Microsecond,
				Clients: 12, Think: Delay{Kind: Exponential, Mean: Millisecond},
				Fields:  []workload.Generator{workload.NewUniform(2), workload.NewUniform(1)},
				Planner: keyspace.NewPointPlanner(twoParts, scheme, false), KeyFields: []int{0, 1},
				Client: Client{Timeout: 3 * Millisecond, Retries: 1},
				Lock:   Delay{Kind: Constant, Mean: 300 * Microsecond}, LockTimeout: 400 * Microsecond,
			},
		},
		Actions: []Action{
			{At: 700 * Millisecond, Kind: SetLimit, Stream: 0, Limit: &Limit{Rate: 1500, Burst: 5}},
			{At: 1400 * Millisecond, Kind: SetLimit, Stream: 0},
		},
		Mechanisms: []Setting{PageLatch{Hold: 90 * Microsecond, Rows: 10}, Pool{Stream: 0, Size: 6}, Pool{Stream: 1, Size: 3}, Pool{Stream: 2, Size: 5}},
	}
	return m
}

// TestMechanismsMixed: with the page latch and the pools among every other mechanism of the
// request path, every request has one outcome, the backlog the engine counts returns to
// zero once the run has drained (each wait counted in e.queued is uncounted when it ends),
// every connection is given back and every page latch freed, and the same seed gives the
// same run.
func TestMechanismsMixed(t *testing.T) {
	e := newEngine(mixModel(3))
	e.run()
	conserve(t, e.res)
	if e.queued != 0 {
		t.Errorf("backlog %d after the run drained, want 0", e.queued)
	}
	pools := e.on[evPoolRelease].(*connPools)
	for i, c := range pools.pools {
		if c.busy != 0 || c.waiting.Len() != 0 {
			t.Errorf("pool %d: %d connections in use, %d waiting after the run, want none", i, c.busy, c.waiting.Len())
		}
	}
	latch := e.on[evLatchRelease].(*pageLatches)
	if n := latch.held.N; n != 0 {
		t.Errorf("%d page latches held after the run, want none", n)
	}
	var failed int64
	for _, st := range e.res.Streams {
		failed += st.TimedOut + st.Rejected + st.Throttled + st.Limited + st.LockTimedOut
		if len(st.Waits) == 0 {
			t.Errorf("stream %s: no waits reported", st.Name)
		}
	}
	if failed == 0 {
		t.Error("no request failed: the model does not exercise the failure paths")
	}
	t.Log(fingerprint(e.res))
	if a, b := fingerprint(e.res), fingerprint(Run(mixModel(3))); a != b {
		t.Errorf("two runs of one seed differ:\n%s\n%s", a, b)
	}
}

// fingerprint is a run's outcome per stream, its waits included, for comparing two runs.
func fingerprint(r *Result) string {
	s := ""
	for _, st := range r.Streams {
		s += fmt.Sprintf("%s off %d ok %d rej %d thr %d to %d lim %d lock %d retries %d lat %.0f;", st.Name, st.Offered, st.Completed,
			st.Rejected, st.Throttled, st.TimedOut, st.Limited, st.LockTimedOut, st.Retries, st.LatencySum)
		for _, w := range st.Waits {
			s += fmt.Sprintf(" %s %d/%d %.0f %d", w.Name, w.Queued, w.Asked, w.Sum, w.Max)
		}
	}
	return s
}

// TestPageLatchKeyOfHeldWrite: a write that is sent after later writes were planned (held
// by its client's rate limit, here) takes the page of its own key. 1,000 writes a second of
// (tenant among 1,000, sequence) behind a queueing limit of 20 a second; at 1 s the limit
// is lifted and the ~980 held writes are sent at once. Each appends at its own tenant's
// right edge, so they spread over some 600 pages: the longest wait for a latch is a few
// holds (0.1 ms each), not the ~980 holds of writes that all took the page of the last
// key planned.
func TestPageLatchKeyOfHeldWrite(t *testing.T) {
	twoParts := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}, {Kind: keyspace.FieldPart, Field: 1}}}
	m := &Model{
		Seed: 1, Duration: 1100 * Millisecond, Window: 100 * Millisecond,
		Nodes: []Node{{Cores: 64}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: Microsecond, Service: Service{Kind: Constant},
			Arrivals: workload.NewUniformArrivals(constRate(1000)),
			Fields:   []workload.Generator{workload.NewUniform(1000), workload.NewSequence()},
			Planner:  keyspace.NewPointPlanner(twoParts, keyspace.NewModulo(1), false),
			Client:   Client{Limit: &Limit{Rate: 20, Burst: 1, Queue: true}},
		}},
		Actions:    []Action{{At: Second, Kind: SetLimit, Stream: 0}},
		Mechanisms: []Setting{PageLatch{Hold: 100 * Microsecond, Rows: 100}},
	}
	r := Run(m)
	conserve(t, r)
	w := r.Streams[0].Waits[0]
	if w.Asked < 1000 || w.Max > 2*Millisecond {
		t.Errorf("%d writes, the longest wait for a page latch %v: want over 1,000 writes spread over their tenants' pages, none waiting 2 ms", w.Asked, w.Max)
	}
}
