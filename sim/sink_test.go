package sim_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// recorder is a window sink that rebuilds the full shard series, so that a streamed run
// can be compared with one that keeps them.
type recorder struct {
	t        *testing.T
	nS, next int
	busy     []sim.Time
	ops      []int64
	mq       []int32
	node     []int32
	util     []float64
	nodeBusy []sim.Time
}

func (r *recorder) ShardWindow(w int, s *sim.ShardWindow) {
	if w != r.next {
		r.t.Fatalf("window %d handed over, want %d", w, r.next)
	}
	r.next++
	r.busy = append(r.busy, s.Busy...)
	r.ops = append(r.ops, s.Ops...)
	r.mq = append(r.mq, s.MaxQueue...)
	r.node = append(r.node, s.Node...)
	r.nodeBusy = append(r.nodeBusy, s.NodeBusy...)
	for sh := range s.Busy {
		r.util = append(r.util, s.Utilization(sh))
	}
}

// TestSinkMatchesSeries: a run whose shard series go to a sink must hand over, window by
// window, exactly the series a run that keeps them records, and end with the same totals
// and node series. The scenarios cover long services that reach several windows ahead
// (timeouts' and the model of longWrites), replicas (noisy-tenant), a migration, cores
// changed by an action (longWrites), an early stop by saturation (longWrites with a bound), and windows
// in which nothing happens; each is shortened to seconds of simulated time.
func TestSinkMatchesSeries(t *testing.T) {
	cases := []struct {
		path     string
		sets     []string
		variants []string
	}{
		{"../scenarios/quickstart.toml", []string{`duration="8s"`, `window="2s"`, `warmup="1s"`}, nil},
		{"../scenarios/noisy-tenant.toml", []string{`duration="12s"`, `window="2s"`, `warmup="2s"`}, nil},
		// The migration starts at 09:02 and its backfill ends at 09:02:04.
		{"../scenarios/migration.toml", []string{`duration="130s"`, "load_factor=0.2"}, []string{"migrate, 5x"}},
		{"../scenarios/hot-counter.toml", []string{`duration="10s"`, `window="1s"`}, nil},
		{"../testdata/timeouts.toml", []string{`duration="12s"`, `window="1s"`}, nil},
		{"../testdata/co-located.toml", []string{`window="250ms"`}, nil},
	}
	for _, c := range cases {
		sc, err := scenarios.Load(c.path, scenarios.Options{Sets: c.sets, Variants: c.variants})
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range sc.Variants {
			r := compareSink(t, c.path+":"+v.Name, v.Model)
			if c.variants != nil && (metrics.MigrationReport(r) == nil || metrics.MigrationReport(r).RowsCopied == 0 || metrics.MigrationReport(r).Cutover <= 0) {
				t.Errorf("%s: the migration did not run its course", v.Name)
			}
		}
	}
	// Writes of 3.5 s each reach three windows ahead, and bursts of them leave queues that
	// hold through quiet windows (no arrival for 3 s): a window closes while its queue
	// waits, and later windows' busy time is recorded before they begin.
	for _, bound := range []int{0, 3} {
		compareSink(t, fmt.Sprintf("long writes, max queued %d", bound), func() *sim.Model {
			return longWrites(bound)
		})
	}
}

// longWrites is TestSinkMatchesSeries' own model; a bound of a few subrequests makes it
// saturate and stop early.
func longWrites(bound int) *sim.Model {
	return &sim.Model{
		Seed: 1, Duration: 12 * sim.Second, Window: sim.Second, MaxQueued: bound,
		Mechanisms: []sim.Setting{operator.Actions{{At: 6500 * sim.Millisecond, Change: operator.Cores, Node: 0, Cores: 3, Text: "resize"}}},
		Nodes:      []sim.Node{{Cores: 1}, {Cores: 2}}, ShardNode: []int{0, 1, 1, 0, 1},
		Streams: []sim.Stream{{
			Name: "w", Op: sim.Write, Cost: 3500 * sim.Millisecond, Service: sim.Service{Kind: sim.Exponential},
			Arrivals: workload.NewUniformArrivals(workload.Schedule{{At: 0, Rate: 4}, {At: int64(sim.Second), Rate: 0},
				{At: int64(4 * sim.Second), Rate: 3}, {At: int64(5 * sim.Second), Rate: 0}, {At: int64(9 * sim.Second), Rate: 2}}),
			Fields:  []workload.Generator{workload.NewUniform(1000)},
			Planner: keyspace.NewPointPlanner(&keyspace.Design{Parts: []keyspace.Part{{Kind: keyspace.FieldPart, Field: 0}}}, keyspace.NewModulo(5), false),
		}},
	}
}

// compareSink runs the model mk makes twice, keeping its shard series and handing them to
// a sink, compares what each recorded, and returns the kept run's result.
func compareSink(t *testing.T, name string, mk func() *sim.Model) *sim.Result {
	t.Helper()
	want := sim.Run(mk())
	if strings.HasSuffix(name, "max queued 3") && !want.Saturated {
		t.Fatalf("%s did not saturate", name)
	}
	m := mk()
	if sim.GrowsShards(m) {
		return want
	}
	rec := &recorder{t: t, nS: len(want.Shards)}
	m.Sink = rec
	got := sim.Run(m)
	if !got.Streamed || got.ShardBusy != nil {
		t.Fatalf("%s: the streamed run kept its shard series", name)
	}
	if rec.next != want.Windows {
		t.Fatalf("%s: %d windows handed over, want %d", name, rec.next, want.Windows)
	}
	if !slices.Equal(rec.busy, want.ShardBusy) || !slices.Equal(rec.ops, want.ShardOps) || !slices.Equal(rec.mq, want.ShardMaxQueue) {
		t.Errorf("%s: the sink's shard series differ from the kept ones", name)
	}
	for w := range want.Windows {
		for s := range want.Shards {
			i := w*len(want.Shards) + s
			if int(rec.node[i]) != want.ShardNodeAt(s, w) || rec.util[i] != want.ShardUtilization(w, s) {
				t.Fatalf("%s: window %d shard %d: node %d load %v, want node %d load %v", name, w, s,
					rec.node[i], rec.util[i], want.ShardNodeAt(s, w), want.ShardUtilization(w, s))
			}
		}
	}
	for s := range want.Shards {
		if got.Shards[s].Ops != want.Shards[s].Ops || got.Shards[s].Busy != want.Shards[s].Busy || got.Utilization(s) != want.Utilization(s) {
			t.Errorf("%s: shard %d totals differ", name, s)
		}
	}
	if !slices.Equal(rec.nodeBusy, want.NodeBusy) {
		t.Errorf("%s: the sink's node busy series differs from the kept one", name)
	}
	if !slices.Equal(got.NodeBusy, want.NodeBusy) || !slices.Equal(got.NodeMaxQueue, want.NodeMaxQueue) || !slices.Equal(got.NodeCapacity, want.NodeCapacity) {
		t.Errorf("%s: node series differ", name)
	}
	if got.Saturated != want.Saturated || got.Elapsed != want.Elapsed {
		t.Errorf("%s: saturated %v at %v, want %v at %v", name, got.Saturated, got.Elapsed, want.Saturated, want.Elapsed)
	}

	return want
}
