package eventloop

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// loopModel is one shard on one node of one core taking reads of a uniform key, each of
// cost (constant or exponential, kind), Poisson at rate per second or from clients
// closed-loop clients with no think time, with no network delay, under an event loop
// whose wake-up costs wake (none when 0). The warmup is 1 s, the windows 1 s.
func loopModel(seed uint64, dur sim.Time, rate float64, clients int, kind sim.ServiceKind, cost, wake sim.Time) *sim.Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	s := sim.Stream{
		Name: "get", Op: sim.Read, Cost: cost, Service: sim.Service{Kind: kind},
		Fields:  []workload.Generator{workload.NewUniform(1_000_000)},
		Planner: keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
	}
	if clients > 0 {
		s.Clients = clients
	} else {
		s.Arrivals = workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}})
	}
	m := &sim.Model{
		Seed: seed, Duration: dur, Window: sim.Second, Warmup: sim.Second,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []sim.Stream{s},
	}
	if wake > 0 {
		m.Mechanisms = []sim.Setting{WakeUp{Cost: wake}}
	}
	return m
}

// meanLatency is the mean latency of the requests a run completed after its warmup, in
// seconds.
func meanLatency(r *sim.Result) float64 {
	return r.Streams[0].LatencySum / float64(r.Streams[0].Completed) / 1e9
}

// closedRate is the closed form of TestWakeUpClosedLoop: C closed-loop clients with no
// think time and no network delay on one core, each request of constant cost c, a
// wake-up of w. One client finds the core idle every time: 1/(w + c). Two or more: the
// request that ends a batch is answered after the core has taken the next, so its client
// misses that batch and every batch holds the C − 1 others: (C − 1)/(w + (C − 1)·c).
func closedRate(clients int, w, c float64) float64 {
	if clients == 1 {
		return 1 / (w + c)
	}
	b := float64(clients - 1)
	return b / (w + b*c)
}

// TestWakeUpClosedLoop (1): C closed-loop clients with no think time and no network
// delay on one core, a constant cost c = 20 µs, a wake-up W = 50 µs (docs/mitigations.md,
// "Event-loop wake-ups"): the node completes closedRate's (C − 1)/(W + (C − 1)·c) a second
// (1/(W + c) for one client), the cap growing from 14,286 at C = 1 towards 1/c = 50,000 as
// the clients (and the batches) grow; its core is busy all the time, the wake-ups
// included, and the bottleneck is its CPU. Seed 1, 20 s after a 1 s warmup (14,000 to
// 990,000 requests); tolerance 0.1% (the runs are deterministic: only the batches cut by
// the warmup's and the run's ends differ from the form).
func TestWakeUpClosedLoop(t *testing.T) {
	const c, w = 20 * sim.Microsecond, 50 * sim.Microsecond
	fig := map[string]string{}
	for _, clients := range []int{1, 8, 50, 200} {
		r := sim.Run(loopModel(1, 21*sim.Second, 0, clients, sim.Constant, c, w))
		got := float64(r.Streams[0].Completed) / 20
		want := closedRate(clients, w.Seconds(), c.Seconds())
		if rel := math.Abs(got-want) / want; rel > 0.001 {
			t.Errorf("%d clients: %.1f requests a second, want (C − 1)/(W + (C − 1)c) = %.1f within 0.1%%", clients, got, want)
		}
		if load := r.NodeLoad(0); math.Abs(load-1) > 0.001 {
			t.Errorf("%d clients: the node's load %.4f, want 1 (its core never idles, the wake-ups are CPU)", clients, load)
		}
		m := metrics.Of(r)
		if b := metrics.BottleneckOf(m, false); b.Resource != metrics.CPU || b.Node != 0 || !b.Binding {
			t.Errorf("%d clients: bottleneck %q (%v, node %d, binding %v), want the node's CPU, binding", clients, b.Text, b.Resource, b.Node, b.Binding)
		}
		t.Logf("%d clients: %.1f requests a second (closed form %.1f), node load %.4f", clients, got, want, r.NodeLoad(0))
		fig[fmt.Sprintf("evclosed.%d.rate", clients)] = units.Count(int64(math.Round(got)))
		fig[fmt.Sprintf("evclosed.%d.cpu", clients)] = fmt.Sprintf("%.1f µs", 1e6/got)
	}
	docmark.Figures(t, "../../docs/mitigations.md", "evclosed", fig)
}

// TestWakeUpLowLoad (2): Poisson requests at 20 a second to one core, of constant cost
// c = 100 µs, under a wake-up W = 50 µs: nearly every request finds the node idle, wakes
// it and pays both, so the mean latency tends to W + c = 150 µs (the queueing that
// 20 · 150 µs = 0.3% of load adds is under 0.2% of it); tolerance 0.5%. The node's load is
// the requests' CPU with one wake-up each, 20 · (W + c) = 0.3%, within 1%. Seed 2, 20,000
// requests after a 1 s warmup. Without the event loop the mean is c, within 0.5%.
func TestWakeUpLowLoad(t *testing.T) {
	const c, w, rate = 100 * sim.Microsecond, 50 * sim.Microsecond, 20.0
	dur := sim.Second + sim.Time(20_000/rate)*sim.Second
	r := sim.Run(loopModel(2, dur, rate, 0, sim.Constant, c, w))
	mechtest.Conserve(t, r)
	if n := r.Streams[0].Completed; n < 19_000 {
		t.Fatalf("%d requests completed, want about 20,000", n)
	}
	want := (w + c).Seconds()
	if got := meanLatency(r); math.Abs(got-want)/want > 0.005 {
		t.Errorf("mean latency %.2f µs at 20/s, want W + c = %.2f µs within 0.5%%", got*1e6, want*1e6)
	}
	if got, want := r.NodeLoad(0), rate*(w+c).Seconds(); math.Abs(got-want)/want > 0.01 {
		t.Errorf("node load %.5f, want 20/s · (W + c) = %.5f within 1%% (each wake-up is CPU)", got, want)
	}
	off := sim.Run(loopModel(2, dur, rate, 0, sim.Constant, c, 0))
	if got := meanLatency(off); math.Abs(got-c.Seconds())/c.Seconds() > 0.005 {
		t.Errorf("without the event loop: mean latency %.2f µs, want c = %.2f µs", got*1e6, c.Seconds()*1e6)
	}
}

// batchReference simulates the batch queue directly, apart from the engine and the
// mechanism: n Poisson arrivals at rate lambda (seed) to one FIFO server, each needing an
// exponential draw of mean c; a job that starts when no batch is left starts one, which
// holds it and every job arrived by its start, and pays w besides its own draw. It returns
// the mean time from arrival to the end of service, in seconds.
func batchReference(seed uint64, n int, lambda, c, w float64) float64 {
	ra, rs := rand.New(rand.NewPCG(seed, 11)), rand.New(rand.NewPCG(seed, 12))
	arr := make([]float64, n)
	t := 0.0
	for i := range arr {
		t += ra.ExpFloat64() / lambda
		arr[i] = t
	}
	end, sum := 0.0, 0.0
	k, left := 0, 0 // k: the jobs arrived by the latest start; left: the batch's jobs not yet started
	for i, a := range arr {
		start := math.Max(a, end)
		for k < n && arr[k] <= start {
			k++
		}
		service := c * rs.ExpFloat64()
		if left == 0 {
			left = k - i // this job and those waiting behind it
			service += w
		}
		left--
		end = start + service
		sum += end - a
	}
	return sum / float64(n)
}

// TestBatchReferenceMM1 checks the reference simulation itself where its answer is known:
// with no wake-up it is an M/M/1 queue, of mean latency c/(1 − λc); at λc = 0.3, 0.6
// and 0.9, 400,000 jobs (seed 1), within 3% (at 0.9 the mean's standard error is about 1%).
func TestBatchReferenceMM1(t *testing.T) {
	const c = 100e-6
	for _, rho := range []float64{0.3, 0.6, 0.9} {
		got, want := batchReference(1, 400_000, rho/c, c, 0), c/(1-rho)
		if rel := math.Abs(got-want) / want; rel > 0.03 {
			t.Errorf("λc = %v: reference %.2f µs, M/M/1's c/(1 − λc) = %.2f µs: off by %.2f%%, tolerance 3%%", rho, got*1e6, want*1e6, rel*100)
		}
	}
}

// TestWakeUpReference (3) compares the engine's mean latency with batchReference's, one
// core, Poisson requests of exponential cost c = 100 µs, a wake-up W = 50 µs, at 30%, 60%
// and 90% of 1/(W + c), the cap if every request woke the node (2,000, 4,000 and 6,000
// requests a second): 400,000 requests each, the engine at seed 3 after a 1 s warmup, the
// reference at seed 4; tolerance 3% (the two are independent draws: over 20 seeds of the
// reference the mean's standard deviation is 0.2%, 0.3% and 0.6% at the three loads, so
// the difference's is under 0.9%). The node's load is below λ(W + c) as the batches grow: the
// wake-ups are shared.
func TestWakeUpReference(t *testing.T) {
	const c, w = 100 * sim.Microsecond, 50 * sim.Microsecond
	const n = 400_000
	fig := map[string]string{}
	for k, rho := range []float64{0.3, 0.6, 0.9} {
		lambda := rho / (c + w).Seconds()
		dur := sim.Second + sim.Time(n/lambda*float64(sim.Second))
		r := sim.Run(loopModel(3, dur, lambda, 0, sim.Exponential, c, w))
		mechtest.Conserve(t, r)
		got := meanLatency(r)
		want := batchReference(4, n, lambda, c.Seconds(), w.Seconds())
		rel := math.Abs(got-want) / want
		if rel > 0.03 {
			t.Errorf("%.0f%%: engine's mean latency %.2f µs, reference %.2f µs: off by %.2f%%, tolerance 3%%", rho*100, got*1e6, want*1e6, rel*100)
		}
		load := r.NodeLoad(0)
		if load >= rho {
			t.Errorf("%.0f%%: node load %.4f, want below λ(W + c) = %.2f (batches share wake-ups)", rho*100, load, rho)
		}
		t.Logf("%.0f%% (%.0f/s): engine %.2f µs, reference %.2f µs (off by %.2f%%), node load %.4f", rho*100, lambda, got*1e6, want*1e6, rel*100, load)
		key := fmt.Sprintf("evref.%d", k)
		fig[key+".sim"] = fmt.Sprintf("%.1f µs", got*1e6)
		fig[key+".ref"] = fmt.Sprintf("%.1f µs", want*1e6)
		fig[key+".load"] = units.Percent(load, 1)
	}
	docmark.Figures(t, "../../docs/mitigations.md", "evref", fig)
}

// TestWakeUpAllocatesNothing: with the event loop on, requests at 60% of a node's cap
// start batches and join them, and 10,000 events in steady state allocate nothing.
// Window 100 s, so no window closes in the measure.
func TestWakeUpAllocatesNothing(t *testing.T) {
	m := loopModel(5, 100*sim.Second, 4000, 0, sim.Exponential, 100*sim.Microsecond, 50*sim.Microsecond)
	m.Window = 100 * sim.Second
	mechtest.NoAllocs(t, m)
}

// BenchmarkWakeUp runs loopModel's requests at 4,000/s (60% of 1/(W + c)) for b.N
// requests: one op is one request, through its node's event loop.
func BenchmarkWakeUp(b *testing.B) {
	const rate = 4000
	m := loopModel(1, sim.Second+sim.Time(float64(b.N)/rate*float64(sim.Second)), rate, 0, sim.Exponential, 100*sim.Microsecond, 50*sim.Microsecond)
	b.ReportAllocs()
	b.ResetTimer()
	sim.Run(m)
}
