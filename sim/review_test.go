package sim

import (
	"testing"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// These tests pin down interactions that a review of the mitigations found wrong; each
// failed before its fix. All models are deterministic (their seeds are fixed), and each
// check follows from the model's timing by hand, as the comments show.

// TestTimeoutCountsTheWayBack: a read takes exactly 3.5 ms on its node, with 1 ms of
// network each way, so its answer reaches the client 5.5 ms after issue; a 5 ms timeout
// must therefore time out every request (the fix: the answer's arrival at the client, not
// the end of service, is compared with the deadline). With a 6 ms timeout all complete,
// in exactly 5.5 ms.
func TestTimeoutCountsTheWayBack(t *testing.T) {
	mk := func(timeout Time) *Model {
		return &Model{
			Seed: 1, Duration: Second, Window: Second, Network: Millisecond,
			Nodes: []Node{{Cores: 100}}, ShardNode: []int{0},
			Streams: []Stream{{
				Name: "r", Op: Read, Cost: 3500 * Microsecond, Service: Service{Kind: Constant},
				Arrivals: workload.NewUniformArrivals(constRate(10)),
				Fields:   []workload.Generator{workload.NewUniform(1000)},
				Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
				Client:   Client{Timeout: timeout},
			}},
		}
	}
	r := Run(mk(5 * Millisecond))
	conserve(t, r)
	if s := r.Streams[0]; s.TimedOut != s.Offered || s.Completed != 0 {
		t.Errorf("5 ms timeout: %d timed out, %d completed of %d; want all timed out (answers arrive at 5.5 ms)", s.TimedOut, s.Completed, s.Offered)
	}
	r = Run(mk(6 * Millisecond))
	if s := r.Streams[0]; s.Completed != s.Offered || s.LatencyMax != 5500*Microsecond {
		t.Errorf("6 ms timeout: %d of %d completed, max latency %v; want all, in 5.5 ms", s.Completed, s.Offered, s.LatencyMax)
	}
}

// TestClientActionAtClientTime: with 100 ms of network each way, a queueing limit of one
// request per 2 s holds the writes issued at 100, 200, ... ms; the limit is lifted at
// 500 ms. A held request leaves the client at 500 ms, reaches the node at 600 ms and its
// answer is back at 700 ms: the one issued at 100 ms takes 600 ms (before the fix, the
// lift took effect one network delay early: 500 ms). The action is recorded at 500 ms.
func TestClientActionAtClientTime(t *testing.T) {
	m := limitedModel(2*Second, 100*Millisecond, 0.5, []Action{{At: 500 * Millisecond, Kind: SetLimit, Stream: 0, Limit: nil, Text: "lift"}})
	r := Run(m)
	conserve(t, r)
	if got, want := r.Streams[0].LatencyMax, 600*Millisecond+2*Nanosecond; got < 600*Millisecond || got > want {
		t.Errorf("longest latency %v, want 600 ms (held from 100 to 500 ms, then 2 x 100 ms of network)", got)
	}
	if len(r.Events) != 1 || r.Events[0].At != 500*Millisecond {
		t.Errorf("events %+v, want the lift at 500 ms", r.Events)
	}
}

// TestWaiterKeepsItsDeadline: reads of one key, 100/s from t = 0, each database read takes
// 50 ms, single-flight on. The first read leads; the reads issued in the next 50 ms join
// it. A stream with a 10 ms timeout must see none of its joined reads complete later than
// 10 ms after issue: they time out at their own deadline (before the fix they completed
// with the leader, at up to 50 ms).
func TestWaiterKeepsItsDeadline(t *testing.T) {
	m := &Model{
		Seed: 1, Duration: 30 * Millisecond, Window: 30 * Millisecond,
		Nodes: []Node{{Cores: 8}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "r", Op: Read, Cost: 50 * Millisecond, Service: Service{Kind: Constant},
			Arrivals:  workload.NewUniformArrivals(constRate(100)),
			Fields:    []workload.Generator{workload.NewUniform(1)},
			Planner:   keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
			Client:    Client{Timeout: 10 * Millisecond},
			KeyFields: []int{0}, UseCache: true,
		}},
		Cache: &Cache{Capacity: 10, TTL: Hour, SingleFlight: true},
	}
	r := Run(m)
	conserve(t, r)
	s := r.Streams[0]
	if s.CacheJoined == 0 || s.Completed != 0 || s.LatencyMax > 10*Millisecond {
		t.Errorf("joined %d, completed %d, max latency %v; want joins, and every read timed out at 10 ms", s.CacheJoined, s.Completed, s.LatencyMax)
	}
}

// TestSampledShardOfCacheHits: with every request sampled, the shard that per-key latency
// reports for a key must be the shard its hot-key entry reports, cache hits included
// (before the fix, hits and joined reads reported shard 0).
func TestSampledShardOfCacheHits(t *testing.T) {
	m := cacheModel(true)
	m.Detect = detect.Config{SampleEvery: 1, MaxKeys: 100_000}
	r := Run(m)
	s := r.Streams[0]
	shard := map[uint64]int{}
	for _, k := range s.HotKeys {
		shard[k.Values[0]] = k.Shard
	}
	checked := 0
	for _, kl := range s.KeyLatencies {
		if sh, ok := shard[kl.Values[0]]; ok {
			checked++
			if sh != kl.Shard {
				t.Errorf("key %d: hot keys say shard %d, key latencies %d", kl.Values[0], sh, kl.Shard)
			}
		}
	}
	if checked < 5 {
		t.Errorf("only %d hot keys found among the key latencies", checked)
	}
}

// TestBackendReadsAreSent: a cached stream whose misses a rejecting rate limit mostly
// turns away. BackendReads must count the database reads actually sent, which are the
// subrequests the shards served (one partition each, every read counted: no warmup);
// before the fix it counted the limited misses too.
func TestBackendReadsAreSent(t *testing.T) {
	m := cacheModel(true)
	m.Streams[0].Client.Limit = &Limit{Rate: 1000, Burst: 1}
	m.Warmup = 0
	r := Run(m)
	s := r.Streams[0]
	var ops int64
	for _, sh := range r.Shards {
		ops += sh.Ops
	}
	if s.Limited == 0 || s.BackendReads != ops {
		t.Errorf("backend reads %d, shard ops %d, limited %d; want reads = ops and some limited", s.BackendReads, ops, s.Limited)
	}
}

// TestTimersDoNotPinRequests: 20,000 reads/s for 2 s on a fast node, with a 10 s timeout
// the run never reaches. A finished request's slot must be reused at once: the pool stays
// as small as the requests in flight (dozens), not rate x timeout (40,000) as before.
func TestTimersDoNotPinRequests(t *testing.T) {
	m := &Model{
		Seed: 1, Duration: 2 * Second, Window: Second,
		Nodes: []Node{{Cores: 8}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "r", Op: Read, Cost: 10 * Microsecond,
			Arrivals: workload.NewPoisson(constRate(20000)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
			Client:   Client{Timeout: 10 * Second},
		}},
	}
	e := newEngine(m)
	e.run()
	if n := len(e.reqs.items); n > 1000 {
		t.Errorf("%d request slots for 20,000/s with a 10 s timeout, want as many as are in flight", n)
	}
	if s := e.res.Streams[0]; s.Completed != s.Offered {
		t.Errorf("%d of %d completed", s.Completed, s.Offered)
	}
}

// TestOneReleaseChain: five limit changes on a held stream must leave one pending release
// event at a time, not one chain per change.
func TestOneReleaseChain(t *testing.T) {
	var acts []Action
	for i := 1; i <= 5; i++ {
		acts = append(acts, Action{At: Time(i) * 300 * Millisecond, Kind: SetLimit, Stream: 0, Limit: &Limit{Rate: 2, Burst: 1, Queue: true}})
	}
	m := limitedModel(10*Second, 0, 2, acts)
	e := newEngine(m)
	releases := 0
	for {
		if e.h.len() > 0 && e.h.ev[0].kind == evRelease && (e.nextStream < 0 || e.h.ev[0].at <= e.streams[e.nextStream].at) {
			releases++
		}
		if !e.step() {
			break
		}
	}
	e.wrapUp()
	conserve(t, e.res)
	// Each held request is released by at most one event, plus a few per change (a stale
	// event, the new head's); before the fix each change started a chain of its own that
	// lived as long as the queue did: 589 events for 100 writes. Today 109.
	if off := e.res.Streams[0].Offered; releases > int(off)+3*len(acts) {
		t.Errorf("%d release events for %d writes and %d limit changes", releases, off, len(acts))
	}
}

// limitedModel is the model of the client-limit tests: for dur, one stream of point
// writes at 10/s (constant cost 1 ns) on one 8-core node, with network each way, behind
// a queueing client limit of rate requests/s and a burst of 1, and the actions acts.
func limitedModel(dur, network Time, rate float64, acts []Action) *Model {
	return &Model{
		Seed: 1, Duration: dur, Window: Second, Network: network,
		Nodes: []Node{{Cores: 8}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: Nanosecond, Service: Service{Kind: Constant},
			Arrivals: workload.NewUniformArrivals(constRate(10)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
			Client:   Client{Limit: &Limit{Rate: rate, Burst: 1, Queue: true}},
		}},
		Actions: acts,
	}
}
