package pool

import (
	"fmt"
	"math"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// poolModel is one M/M/1 node (one core, exponential service of mean 1 ms) taking
// Poisson point reads at lambda per second, no network delay, through a client pool of
// size connections.
func poolModel(seed uint64, dur sim.Time, lambda float64, size int) *sim.Model {
	return &sim.Model{
		Seed: seed, Duration: dur, Window: 10 * sim.Second, Warmup: 10 * sim.Second,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "r", Op: sim.Read, Cost: sim.Millisecond, Service: sim.Service{Kind: sim.Exponential},
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: lambda}}),
			Fields:   []workload.Generator{workload.NewUniform(1_000_000)},
			Planner:  keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, keyspace.NewModulo(1), true),
		}},
		Mechanisms: []sim.Setting{Pool{Stream: 0, Size: size}},
	}
}

// TestPoolMM1 holds a connection pool in front of an M/M/1 node to the closed forms: the
// client and the node are one M/M/1 system (the pool only moves the waiting from the
// node's queue to the client's), so with n in the system (P(n) = (1 - rho) rho^n), the
// requests beyond N wait for a connection: the mean wait for one is
// E[(n - N)+] / lambda = rho^(N+1) / ((1 - rho) lambda), a share rho^N of the requests
// wait for one (PASTA), and the latency is M/M/1's 1/(mu - lambda) whatever N. lambda =
// 800/s, mu = 1,000/s (rho = 0.8), N = 2 and 8. Seed 1, 2,000 s after a 10 s warmup:
// about 1.6 million requests each. Tolerance 4% on the means (M/M/1 at rho = 0.8
// converges slowly), 0.01 absolute on the share.
func TestPoolMM1(t *testing.T) {
	const lambda, mu = 800.0, 1000.0
	rho := lambda / mu
	figs := map[string]string{}
	for _, n := range []int{2, 8} {
		r := sim.Run(poolModel(1, 2010*sim.Second, lambda, n))
		st := &r.Streams[0]
		w := st.Waits
		if len(w) != 1 || w[0].Name != "pool" || w[0].Asked != st.Offered || w[0].Asked < 1_500_000 {
			t.Fatalf("N=%d: waits %+v for %d requests, want one pool entry counting each, over 1.5 million", n, w, st.Offered)
		}
		got := w[0].Sum / float64(w[0].Asked) / 1e6 // ms
		want := math.Pow(rho, float64(n+1)) / ((1 - rho) * lambda) * 1e3
		if rel := math.Abs(got-want) / want; rel > 0.04 {
			t.Errorf("N=%d: mean wait for a connection %.3f ms, closed form %.3f ms: off by %.1f%%, tolerance 4%%", n, got, want, rel*100)
		}
		share := float64(w[0].Queued) / float64(w[0].Asked)
		if wantShare := math.Pow(rho, float64(n)); math.Abs(share-wantShare) > 0.01 {
			t.Errorf("N=%d: %.3f of the requests waited for a connection, want rho^N = %.3f", n, share, wantShare)
		}
		lat := st.LatencySum / float64(st.Completed) / 1e6
		if wantLat := 1 / (mu - lambda) * 1e3; math.Abs(lat-wantLat)/wantLat > 0.04 {
			t.Errorf("N=%d: mean latency %.3f ms, M/M/1 %.3f ms", n, lat, wantLat)
		}
		t.Logf("N=%d: wait for a connection %.3f ms (closed form %.3f), %.3f waited (rho^N %.3f), latency %.3f ms", n, got, want, share, math.Pow(rho, float64(n)), lat)
		figs[fmt.Sprintf("pool.n%d.sim", n)] = fmt.Sprintf("%.3f ms", got)
		figs[fmt.Sprintf("pool.n%d.theory", n)] = fmt.Sprintf("%.3f ms", want)
		figs[fmt.Sprintf("pool.n%d.share", n)] = fmt.Sprintf("%.3f", share)
		mechtest.Conserve(t, r)
	}
	docmark.Figures(t, "../../docs/mitigations.md", "pool", figs)
}

// TestPoolDrains: with client timeouts and retries (each attempt of 1.5 ms at most, two
// retries) in front of a node loaded to rho = 0.9, requests end by failing as well as by
// succeeding, and every one gives its connection back: once the run has drained, no
// connection of the pool is in use and no request waits for one. Seed 3, 20 s.
func TestPoolDrains(t *testing.T) {
	var all *connPools
	m := poolModel(3, 30*sim.Second, 900, 4)
	m.Streams[0].Client = sim.Client{Timeout: 1500 * sim.Microsecond, Retries: 2, Backoff: sim.Millisecond, BackoffMax: 4 * sim.Millisecond}
	m.Mechanisms = []sim.Setting{kept{m.Mechanisms[0].(Pool), &all}}
	r := sim.Run(m)
	mechtest.Conserve(t, r)
	if st := r.Streams[0]; st.TimedOut == 0 || st.Retries == 0 {
		t.Errorf("%d timed out, %d retries: the model does not exercise the failure paths", st.TimedOut, st.Retries)
	}
	for i, c := range all.pools {
		if c.busy != 0 || c.waiting.Len() != 0 {
			t.Errorf("pool %d: %d connections in use, %d waiting after the run, want none", i, c.busy, c.waiting.Len())
		}
	}
}

// kept is a pool with the run's pools kept in *all, to be looked at after the run.
type kept struct {
	Pool
	all **connPools
}

func (k kept) On(c sim.Core) { *k.all = k.Pool.start(c) }

// TestPoolAllocatesNothing: requests waiting for a connection and released to it in
// steady state allocate nothing (noAllocs), with a pool of 4 at rho = 0.9.
func TestPoolAllocatesNothing(t *testing.T) {
	m := poolModel(2, 1000*sim.Second, 900, 4)
	m.Window = 1000 * sim.Second
	mechtest.NoAllocs(t, m)
}

// BenchmarkPool runs poolModel at rho = 0.8 with a pool of 2 (a share 0.64 of the requests
// wait for a connection) for b.N requests: one op is one request.
func BenchmarkPool(b *testing.B) {
	const rate = 800
	m := poolModel(1, 10*sim.Second+sim.Time(float64(b.N)/rate*float64(sim.Second)), rate, 2)
	b.ReportAllocs()
	b.ResetTimer()
	sim.Run(m)
}
