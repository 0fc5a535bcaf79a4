package sim

import (
	"math"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/workload"
)

// mm1Detail is an M/M/1 queue (seed 3): Poisson writes at 800/s on one core with
// exponential service of mean 1 ms (utilization 0.8), no network, 60 s in 10 s windows,
// with a detail range from 10 s to 50 s in 1 s windows.
func mm1Detail() *Model {
	d := &keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}
	return &Model{
		Seed: 3, Duration: 60 * Second, Window: 10 * Second,
		Nodes: []Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []Stream{{
			Name: "w", Op: Write, Cost: Millisecond,
			Arrivals: workload.NewPoisson(workload.Schedule{{At: 0, Rate: 800}}),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(d, keyspace.NewModulo(1), false),
		}},
		Detail: Detail{From: 10 * Second, To: 50 * Second, Window: Second},
	}
}

// TestDetailMatchesWindows: the fine windows hold the same completions as the coarse
// windows they cover (counts equal, and each coarse window's p99 equal to that of its ten
// fine windows merged, to the microsecond: the same histogram layout over the same
// requests), and the range's p99 agrees with the M/M/1 closed form. An M/M/1 response time
// is exponential with rate mu - lambda = 1000 - 800 = 200/s, so its p99 is
// ln(100)/200 s = 23.03 ms; over the range's ~32,000 requests (correlated: the queue
// remembers about a tenth of a second), the measured p99 must be within 15% of it.
func TestDetailMatchesWindows(t *testing.T) {
	r := Run(mm1Detail())
	st := &r.Streams[0]
	if n := r.Detail.FineWindows(); n != 40 || len(st.Fine) != 40 {
		t.Fatalf("%d fine windows, %d histograms; want 40", n, len(st.Fine))
	}
	var all WindowHist
	for w := 1; w <= 4; w++ {
		var merged WindowHist
		for i := (w - 1) * 10; i < w*10; i++ {
			merged.Merge(&st.Fine[i])
		}
		coarse := &st.Win[w]
		if merged.TotalCount() != coarse.Completed || coarse.Hist.TotalCount() != coarse.Completed {
			t.Errorf("window %d: fine windows hold %d completions, the window %d (its histogram %d)", w, merged.TotalCount(), coarse.Completed, coarse.Hist.TotalCount())
		}
		if a, b := merged.ValueAtQuantile(99), coarse.Hist.ValueAtQuantile(99); a != b {
			t.Errorf("window %d: p99 of the fine windows merged %d us, of the window %d us", w, a, b)
		}
		all.Merge(&merged)
	}
	want := math.Log(100) / 200 * 1e6 // microseconds
	if got := float64(all.ValueAtQuantile(99)); math.Abs(got-want) > 0.15*want {
		t.Errorf("p99 over the detail range %.0f us, want M/M/1's %.0f us within 15%%", got, want)
	}
}

// TestDetailCutAtEnd: a range that runs past the end of the run keeps the windows inside
// it; one that starts past the end keeps none.
func TestDetailCutAtEnd(t *testing.T) {
	m := mm1Detail()
	m.Detail = Detail{From: 55 * Second, To: 70 * Second, Window: 2 * Second}
	r := Run(m)
	if got := len(r.Streams[0].Fine); got != 3 || r.Detail.To != 60*Second {
		t.Errorf("55 s to 70 s in 2 s windows, in a 60 s run: %d fine windows up to %v, want 3 up to 60 s", got, r.Detail.To)
	}
	var n int64
	for i := range r.Streams[0].Fine {
		n += r.Streams[0].Fine[i].TotalCount()
	}
	if n == 0 || n > r.Streams[0].Win[5].Completed {
		t.Errorf("%d completions in the fine windows of 55 s to 60 s, want some, at most the last window's %d", n, r.Streams[0].Win[5].Completed)
	}
	m = mm1Detail()
	m.Detail = Detail{From: 60 * Second, To: 70 * Second, Window: Second}
	if r := Run(m); r.Streams[0].Fine != nil || r.Detail.Window != 0 {
		t.Errorf("a range after the run: %d fine windows, detail %+v; want none", len(r.Streams[0].Fine), r.Detail)
	}
}
