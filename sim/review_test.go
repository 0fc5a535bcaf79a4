package sim

import (
	"testing"

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
	var changes limitChanges
	for i := 1; i <= 5; i++ {
		changes = append(changes, limitChange{At: Time(i) * 300 * Millisecond, Stream: 0, Limit: &Limit{Rate: 2, Burst: 1, Queue: true}})
	}
	m := limitedModel(10*Second, 2, changes)
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
	if off := e.res.Streams[0].Offered; releases > int(off)+3*len(changes) {
		t.Errorf("%d release events for %d writes and %d limit changes", releases, off, len(changes))
	}
}

// limitedModel is the model of TestOneReleaseChain: for dur, one stream of point writes at
// 10/s (constant cost 1 ns) on one 8-core node, behind a queueing client limit of rate
// requests/s and a burst of 1, and the limit's changes.
func limitedModel(dur Time, rate float64, changes limitChanges) *Model {
	return &Model{
		Seed: 1, Duration: dur, Window: Second,
		Nodes: []Node{{Cores: 8}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: Nanosecond, Service: Service{Kind: Constant},
			Arrivals: workload.NewUniformArrivals(constRate(10)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
			Client:   Client{Limit: &Limit{Rate: rate, Burst: 1, Queue: true}},
		}},
		Mechanisms: []Setting{changes},
	}
}
