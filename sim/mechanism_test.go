package sim

import (
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// namedHandler is a Handler that handles nothing, told apart by its name.
type namedHandler struct{ name string }

func (*namedHandler) Handle(Core, Time, int32) {}

// TestRegistry checks the registry's bookkeeping: each kind goes to the Handler that
// registered it, every Handler is kept (for its wrap-up) in the order it registered, and a
// kind taken twice, or one of the core's (evDone, the client's, a closed loop's), panics.
func TestRegistry(t *testing.T) {
	var g registry
	a, b := &namedHandler{"a"}, &namedHandler{"b"}
	k1, k2 := evFixed, evFixed+1
	g.register(a, k1, k2)
	g.register(b)
	if g.on[k1] != a || g.on[k2] != a {
		t.Errorf("on = %v, want the first Handler for its two kinds", g.on)
	}
	for k := range evKinds {
		if k != k1 && k != k2 && g.on[k] != nil {
			t.Errorf("kind %d has Handler %v, registered by none", k, g.on[k])
		}
	}
	if len(g.all) != 2 || g.all[0] != a || g.all[1] != b {
		t.Errorf("all = %v, want the two Handlers in the order they registered", g.all)
	}
	for _, kind := range []evKind{k1, evDone, evTimer, evSend, evRelease, evIssue, evTimers} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("registering kind %d (taken, or the core's) did not panic", kind)
				}
			}()
			g.register(&namedHandler{"c"}, kind)
		}()
	}
}

// TestClientEventsAreTheCore: the client's timeouts, retries and queueing rate limit, and
// a closed-loop client's requests, are handled by the core itself: a run that has every
// one of their events registers nothing, and its clients still time out, retry and think.
func TestClientEventsAreTheCore(t *testing.T) {
	m := retryModel(3 * Millisecond)
	m.Streams[0].Client.Limit = &Limit{Rate: 1200, Burst: 1, Queue: true}
	m.Streams = append(m.Streams, Stream{
		Name: "loop", Op: Read, Cost: Millisecond,
		Fields:  []workload.Generator{workload.NewUniform(1000)},
		Planner: keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), true),
		Clients: 4, Think: Delay{Kind: Exponential, Mean: 5 * Millisecond},
	})
	e := newEngine(m)
	if len(e.all) != 0 || len(e.windowed) != 0 {
		t.Errorf("%d Handlers and %d window watchers registered for the client's events, want none", len(e.all), len(e.windowed))
	}
	for k := range evKinds {
		if e.on[k] != nil {
			t.Errorf("kind %d has a Handler: the core's kinds need none", k)
		}
	}
	e.run()
	get, loop := &e.res.Streams[0], &e.res.Streams[1]
	if get.TimedOut == 0 || get.Retries == 0 || loop.Completed == 0 {
		t.Errorf("timed out %d, retries %d, closed loop completed %d: want each above 0", get.TimedOut, get.Retries, loop.Completed)
	}
}
