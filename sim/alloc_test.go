package sim

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// TestNoAllocationsPerRequest runs a busy model into steady state, then measures the
// allocations of 10,000 further events (about 5,000 requests with their completions): there
// must be none. Per-window histograms are allocated once per window, so the window is wider
// than the measured stretch.
func TestNoAllocationsPerRequest(t *testing.T) {
	const shards = 12
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	scheme := keyspace.NewModulo(shards)
	mk := func(name string, op Op, p Planner) Stream {
		return Stream{
			Name: name, Op: op, Cost: 80 * Microsecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 50000}}),
			Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
			Planner:  p,
		}
	}
	// A scan that reads rows (a row model, a row cost and a limit) plans through closures
	// and the generators' probabilities: none of it may allocate either.
	q, err := keyspace.NewQueryPlanner(d, scheme, []keyspace.PartQuery{{Mode: keyspace.Enumerate, Count: 4}})
	if err != nil {
		t.Fatal(err)
	}
	zipf := workload.NewZipf(1_000_000, 0.99, true)
	q.SetRows(&keyspace.Rows{History: int64(Hour), Limit: 100, Sources: []keyspace.RowSource{{
		Written: workload.Schedule{{At: 0, Rate: 50000}}.Integral, Share: []func(uint64) float64{zipf.Prob}}}})
	m := &Model{
		Seed: 1, Duration: 100 * Second, Window: 100 * Second, Network: Millisecond,
		Nodes: make([]Node, shards), ShardNode: make([]int, shards),
		Streams: []Stream{
			mk("w", Write, keyspace.NewPointPlanner(d, scheme, false)),
			mk("r", Read, keyspace.NewPointPlanner(d, scheme, true)),
			{Name: "s", Op: Scan, Cost: Millisecond, Planner: keyspace.NewScatterPlanner(shards),
				Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 20}}),
				Fields:   []workload.Generator{nil}},
			{Name: "rows", Op: Scan, Cost: Millisecond, RowCost: Microsecond, RowsModeled: true, Planner: q,
				Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 20}}),
				Fields:   []workload.Generator{nil}},
		},
	}
	for i := range m.Nodes {
		m.Nodes[i] = Node{Cores: 1, QueueLimit: 1000}
		m.ShardNode[i] = i
	}
	t.Run("plain", func(t *testing.T) { noAllocs(t, m) })
	// One worker of a run split between two (parallel.go): it passes over the other's
	// subrequests, and logs the scans both serve a part of and the sampled successes for
	// the merge. Those logs grow by doubling or by chunks, a few times a run and never per request:
	// they are grown ahead here so that the measure sees the per-request path alone.
	sm := *m
	t.Run("split", func(t *testing.T) {
		e := newEngine(&sm)
		e.serveShare(0, 2)
		e.part.joins = make([]joinPart, 0, 1<<16)
		e.part.logged = sampleLogs{make([]sampleLog, 0, 1<<16)}
		noAllocsOn(t, e)
	})
	// A detail range counts each success into a fine window's dense array as well; fine
	// windows of 50 s do not close during the measured events.
	dm := *m
	dm.Detail = Detail{From: 0, To: 100 * Second, Window: 50 * Second}
	t.Run("detail", func(t *testing.T) { noAllocs(t, &dm) })

	// Closed-loop clients: 64 clients issue reads as they hear answers, beside open-loop
	// writes. (Row locks: mechanisms/locks, TestLocksAllocateNothing.)
	lm := *m
	lm.Streams = []Stream{
		mk("w", Write, keyspace.NewPointPlanner(d, scheme, false)),
		{Name: "c", Op: Read, Cost: 80 * Microsecond, Fields: []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
			Planner: keyspace.NewPointPlanner(d, scheme, true), Clients: 64, Think: Delay{Kind: Exponential, Mean: 20 * Millisecond}},
	}
	t.Run("closed", func(t *testing.T) {
		e := noAllocs(t, &lm)
		if c := &e.res.Streams[1]; c.Completed == 0 {
			t.Errorf("%d closed-loop reads completed: want some", c.Completed)
		}
	})
}

// noAllocs runs m into steady state and measures the allocations of 10,000 more events.
func noAllocs(t *testing.T, m *Model) *engine {
	return noAllocsOn(t, newEngine(m))
}

// noAllocsOn is noAllocs on an engine already made.
func noAllocsOn(t *testing.T, e *engine) *engine {
	for i := 0; i < 200_000; i++ { // warm up: pools, queues and the heap reach their size
		e.step()
	}
	allocs := testing.AllocsPerRun(20, func() {
		for i := 0; i < 10_000; i++ {
			if !e.step() {
				t.Fatal("model ran out of events")
			}
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per 10,000 events in steady state, want 0", allocs)
	}
	return e
}

// TestShardQueueCarriesOver: eleven one-second writes arrive in the first second (at 0,
// 0.1, ..., 1.0 s: uniform arrivals start at t = 0) at a
// single-core node; the backlog then drains one a second with no new arrivals. Every
// window must still report the shard's and the node's backlog (found by review: the
// shard's was reported only in windows where something was queued).
func TestShardQueueCarriesOver(t *testing.T) {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	m := &Model{
		Seed: 1, Duration: 12 * Second, Window: Second,
		Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: Second, Service: Service{Kind: Constant},
			Arrivals: workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 10}, {At: int64(Second), Rate: 10}, {At: int64(Second) + 1, Rate: 0}}),
			Fields:   []workload.Generator{workload.NewUniform(10)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
		}},
	}
	r := Run(m)
	if r.Streams[0].Offered != 11 {
		t.Fatalf("%d writes issued, want 11", r.Streams[0].Offered)
	}
	for w := 1; w < 10; w++ {
		// One write is served per second, so at least one is still waiting in each of
		// the windows 1 to 9.
		if r.ShardMaxQueue[w] == 0 || r.NodeMaxQueue[w] == 0 {
			t.Errorf("window %d: shard max queue %d, node max queue %d; want the backlog carried over", w, r.ShardMaxQueue[w], r.NodeMaxQueue[w])
		}
		if r.ShardMaxQueue[w] != r.NodeMaxQueue[w] {
			t.Errorf("window %d: one shard on one node, but shard max queue %d != node's %d", w, r.ShardMaxQueue[w], r.NodeMaxQueue[w])
		}
	}
}
