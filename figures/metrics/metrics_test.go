package metrics

import (
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// oneKey is a partition key of one part: field 0 as it is.
var oneKey = &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}

func point(name string, op sim.Op, rate float64, cost sim.Time) sim.Stream {
	return sim.Stream{
		Name: name, Op: op, Cost: cost,
		Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: rate}}),
		Fields:   []workload.Generator{workload.NewUniform(1 << 20)},
		Planner:  keyspace.NewPointPlanner(oneKey, keyspace.NewModulo(1), op == sim.Read),
	}
}

// One request every 2 s (uniform arrivals, seed 1, 30 s: 15 requests), 150 ms of constant
// service on an idle core and no network: every latency is exactly 150 ms, recorded as
// 150,000 µs, whose HdrHistogram bucket (3 significant digits: 128 µs wide at this
// magnitude) ends above it. The raw quantiles exceed the exact maximum; ours equal it.
func TestQuantilesCappedAtMax(t *testing.T) {
	st := point("fixed", sim.Write, 0.5, 150*sim.Millisecond)
	st.Arrivals = workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 0.5}})
	st.Service = sim.Service{Kind: sim.Constant}
	res := sim.Run(&sim.Model{Seed: 1, Duration: 30 * sim.Second, Window: 10 * sim.Second,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0}, Streams: []sim.Stream{st}})
	r := &res.Streams[0]
	raw := quantileMillis(r.Latency, 0.999)
	if r.Completed != 15 || r.LatencyMax != 150*sim.Millisecond || raw <= 150 {
		t.Fatalf("%d completed, max %v, raw p999 %v ms; the test needs 15 at exactly 150ms and a raw p999 above it", r.Completed, r.LatencyMax, raw)
	}
	l := Of(res).Streams[0].Latency
	for i, p := range []*float64{l.Mean, l.P50, l.P90, l.P95, l.P99, l.P999} {
		if p == nil || *p > *l.Max {
			t.Errorf("statistic %d = %s, above max %v", i, show(p), *l.Max)
		}
	}
	if *l.P999 != 150 || *l.Max != 150 || *l.Mean != 150 {
		t.Errorf("p999 %v, max %v, mean %v; want 150 ms each", *l.P999, *l.Max, *l.Mean)
	}
	for w := range r.Win {
		win := &r.Win[w]
		if q := WindowQuantile(win, 0.99); q == nil || *q != win.Max.Millis() {
			t.Errorf("window %d: p99 %s, want its max %v", w, show(q), win.Max.Millis())
		}
	}
	if q := WindowQuantile(&sim.WindowLatency{}, 0.5); q != nil {
		t.Errorf("an empty window's p50 is %v, want nil", *q)
	}
}

func TestHottest(t *testing.T) {
	for _, tc := range []struct {
		loads        []float64
		idx          int
		load, median float64
		ratio        float64 // -1: nil
		mean         float64
	}{
		{loads: []float64{0.2, 0.8, 0.4, 0.4}, idx: 1, load: 0.8, median: 0.4, ratio: 2, mean: 0.8 / 0.45},
		{loads: []float64{0.9, 0, 0}, idx: 0, load: 0.9, median: 0, ratio: -1, mean: 3},
		{loads: []float64{0, 0}, idx: 0, load: 0, median: 0, ratio: 1, mean: 0},
		{loads: []float64{0.5, 0.5, 0.1}, idx: 0, load: 0.5, median: 0.5, ratio: 1, mean: 0.5 / (1.1 / 3)},
	} {
		h := HottestOf(tc.loads)
		ratioOK := (tc.ratio < 0 && h.MaxOverMedian == nil) || (h.MaxOverMedian != nil && math.Abs(*h.MaxOverMedian-tc.ratio) < 1e-12)
		if h.Index != tc.idx || h.Load != tc.load || h.Median != tc.median || !ratioOK || math.Abs(h.MaxOverMean-tc.mean) > 1e-12 {
			t.Errorf("HottestOf(%v) = %+v (ratio %v); want %d, %v, median %v, ratio %v, over mean %v",
				tc.loads, h, h.MaxOverMedian, tc.idx, tc.load, tc.median, tc.ratio, tc.mean)
		}
	}
}

// Two nodes, two shards, seed 3, 20 s: shard 0 (node 0) takes writes of 0.5 ms at 1,000/s
// on 1 core, shard 1 (node 1) reads of 0.1 ms at 1,000/s; by the utilization law the loads
// are 0.5 and 0.1, so node 0 is the hottest at 0.5 within 0.03, and skew is 0.5/0.3.
func TestHottestNode(t *testing.T) {
	w := point("w", sim.Write, 1000, 500*sim.Microsecond)
	w.Planner = fixedShard(0)
	r := point("r", sim.Read, 1000, 100*sim.Microsecond)
	r.Planner = fixedShard(1)
	run := Of(sim.Run(&sim.Model{Seed: 3, Duration: 20 * sim.Second, Window: 5 * sim.Second,
		Nodes: []sim.Node{{Cores: 1}, {Cores: 1}}, ShardNode: []int{0, 1}, Streams: []sim.Stream{w, r}}))
	if run.Node.Index != 0 || math.Abs(run.Node.Load-0.5) > 0.03 || run.Shard.Index != 0 || math.Abs(run.Nodes[1].Utilization-0.1) > 0.01 {
		t.Errorf("hottest node %d at %v (node 1 at %v), hottest shard %d; want node 0 at 0.5, node 1 at 0.1, shard 0",
			run.Node.Index, run.Node.Load, run.Nodes[1].Utilization, run.Shard.Index)
	}
	if math.Abs(run.Node.MaxOverMean-0.5/0.3) > 0.1 {
		t.Errorf("node max/mean %v, want 5/3 within 0.1", run.Node.MaxOverMean)
	}
	for _, n := range run.Nodes {
		if n.Peak < n.Utilization {
			t.Errorf("node %d: peak %v below its run-wide %v", n.ID, n.Peak, n.Utilization)
		}
	}
}

// fixedShard sends every request to one shard.
type fixedShard int

func (f fixedShard) Plan(dst []keyspace.Visit, _ *rand.Rand, _ []uint64, _ int64) []keyspace.Visit {
	return append(dst, keyspace.Visit{Shard: int32(f), Partitions: 1})
}

// lambda = 2,000/s against mu = 1,000/s on one core with an unbounded queue: the backlog
// grows by about 1,000 a second and passes MaxQueued = 5,000 after about 5 s (seed 9).
func TestJudgeSaturated(t *testing.T) {
	m := &sim.Model{Seed: 9, Duration: 60 * sim.Second, Window: 10 * sim.Second, MaxQueued: 5000,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0}, Streams: []sim.Stream{point("put", sim.Write, 2000, sim.Millisecond)}}
	run := Of(sim.Run(m))
	if !run.Saturated || run.Complete() {
		t.Fatalf("the run did not saturate: %+v", run)
	}
	if run.Stream("put").Latency.P99 == nil {
		t.Fatal("put completed nothing; the test needs a stream that met a loose SLO before the run stopped")
	}
	slo, _ := ParseSLO("put:p99<1h")
	if v := Judge(slo, []*Run{run}); v.OK || !strings.Contains(v.Reason, "saturated") {
		t.Errorf("Judge = %+v; want a failure because the run saturated", v)
	}
	a := Assess([]SLO{slo}, 1, []*Run{run})
	if a.OK || a.Binding != "saturated" {
		t.Errorf("Assess = %+v; want binding saturated", a)
	}
	run.Partial, run.Saturated = true, false
	if a := Assess([]SLO{slo}, 1, []*Run{run}); a.OK || a.Binding != "interrupted" {
		t.Errorf("Assess of a partial run = %+v; want binding interrupted", a)
	}
}

func TestParseSLO(t *testing.T) {
	for _, tc := range []struct {
		in    string
		stat  Statistic
		bound float64
	}{
		{"create_order:p99<50ms", P99, 50},
		{" get : p999 < 1.5s", P999, 1500},
		{"x:mean<250us", Mean, 0.25},
		{"x:max<1d", Max, 86_400_000},
		{"x:errors<0.1%", ErrorRate, 0.001},
		{"x:errors<0.02", ErrorRate, 0.02},
	} {
		s, err := ParseSLO(tc.in)
		if err != nil || s.Stat != tc.stat || math.Abs(s.Bound-tc.bound) > 1e-9 || s.Text != tc.in {
			t.Errorf("ParseSLO(%q) = %+v, %v; want %v < %v", tc.in, s, err, tc.stat, tc.bound)
		}
	}
	for _, bad := range []string{"create_order", "create_order:p99", "create_order:p98<50ms", ":p99<50ms", "x:p99<fast",
		"x:p99<-1ms", "x:p99<0s", "x:errors<2", "x:errors<0", "x:errors<50ms"} {
		if _, err := ParseSLO(bad); err == nil {
			t.Errorf("ParseSLO(%q) accepted", bad)
		}
	}
}

// show formats an optional value for a failure message.
func show(p *float64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// TestQuantilesPastHours: one request every 10 minutes (uniform arrivals, seed 1, 2 days:
// 288 requests) of one hour of constant service on one core: the queue grows by 50
// minutes with each request, so request k (from 0) waits 50k minutes and takes
// 60 + 50k minutes. The k-th smallest latency is that, so the median (k = 143 or 144,
// rank 144.5 of 288) is about 60 + 50 x 143.5 minutes = 120.6 hours, the p99 (rank 285.6)
// about 60 + 50 x 285 = 238.5 hours. Quantiles used to stop at the histogram's 10^10 µs
// (2.78 h) while the mean went on; they must now be within the run histogram's 0.1% of
// these (tolerance 1%: the quantile's rank rounds to a neighbouring request, 50 minutes
// apart, 0.4% of the p99), and the mean the formula's 60 + 50 x 143.5 minutes.
func TestQuantilesPastHours(t *testing.T) {
	st := point("slow", sim.Write, 1.0/600, sim.Hour)
	st.Arrivals = workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 1.0 / 600}})
	st.Service = sim.Service{Kind: sim.Constant}
	res := sim.Run(&sim.Model{Seed: 1, Duration: 48 * sim.Hour, Window: sim.Hour,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0}, Streams: []sim.Stream{st}})
	l := Of(res).Streams[0].Latency
	if l.P99 == nil || l.Mean == nil || l.P50 == nil {
		t.Fatal("no latency figures")
	}
	hours := func(ms *float64) float64 { return *ms / 3.6e6 }
	for _, c := range []struct {
		what      string
		got, want float64
	}{
		{"p50", hours(l.P50), (60 + 50*143.5) / 60},
		{"p99", hours(l.P99), (60 + 50*285.0) / 60},
		{"mean", hours(l.Mean), (60 + 50*143.5) / 60},
	} {
		if math.Abs(c.got-c.want)/c.want > 0.01 {
			t.Errorf("%s %.2f h, want %.2f h within 1%%", c.what, c.got, c.want)
		}
	}
}
