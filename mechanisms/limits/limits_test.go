package limits_test

import (
	"fmt"
	"math"
	"reflect"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// Tests of partition limits (docs/mitigations.md, "Partition throughput limits"): each
// shows their effect in numbers and compares it with a closed form or an exact count,
// stating its seed, sample size, tolerance and the reasoning it compares with. The models
// are built by the functions below, so that the determinism test can build each one twice.

var keyDesign = mechtest.OneFieldKey

// on is the mechanisms of a model with partition limits l.
func on(l scenario.PartitionLimits) []sim.Setting { return []sim.Setting{limits.Limits{Settings: l}} }

// ---- partition write limit ----

// writeLimitModel: Poisson writes at 2,000/s, all to one partition on one shard, limited to
// 1,000 write units per second with a 10 s bank (10,000 units, full at the start), 20 s.
func writeLimitModel() *sim.Model {
	return &sim.Model{
		Seed: 13, Duration: 20 * sim.Second, Window: sim.Second, Network: 500 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "put", Op: sim.Write, Cost: 100 * sim.Microsecond,
			Arrivals: workload.NewPoisson(mechtest.Steady(2000)),
			Fields:   []workload.Generator{workload.NewUniform(1)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(1), false),
		}},
		Mechanisms: on(scenario.PartitionLimits{WriteUnits: 1000, Burst: 10 * sim.Second}),
	}
}

// TestPartitionWriteLimit. Seed 13; 40,000 writes. The bank of 10,000 units drains at the
// net 2,000 - 1,000 = 1,000/s, so it is empty after 10 s (± 0.15 s: the Poisson count's
// standard deviation in 10 s is 141): windows 0-8 throttle nothing. From then on the
// partition admits its refill, 1,000/s, of 2,000/s offered: the throttled share of windows
// 11-19 (about 18,000 writes) must be 0.5 ± 0.03, and each of those windows 0.5 ± 0.06.
func TestPartitionWriteLimit(t *testing.T) {
	r := sim.Run(writeLimitModel())
	mechtest.Conserve(t, r)
	s := &r.Streams[0]
	for w := 0; w <= 8; w++ {
		if s.Win[w].Failed[limits.Throttled] != 0 {
			t.Errorf("window %d: %d writes throttled while the bank lasts", w, s.Win[w].Failed[limits.Throttled])
		}
	}
	var thr, all int64
	for w := 11; w < r.Windows; w++ {
		win := &s.Win[w]
		n := win.Completed + win.Errors
		f := float64(win.Failed[limits.Throttled]) / float64(n)
		if math.Abs(f-0.5) > 0.06 {
			t.Errorf("window %d: %.3f of %d writes throttled, want 0.5 ± 0.06", w, f, n)
		}
		thr += win.Failed[limits.Throttled]
		all += n
	}
	f := float64(thr) / float64(all)
	t.Logf("throttled %.4f of %d writes in windows 11-19; total throttled %d of %d", f, all, s.Failed[limits.Throttled], s.Offered)
	mechtest.DocFigures(t, "partlimit", map[string]string{"partlimit.fraction": fmt.Sprintf("%.4f", f),
		"partlimit.throttled": mechtest.GroupInt(s.Failed[limits.Throttled]), "partlimit.offered": mechtest.GroupInt(s.Offered)})
	if math.Abs(f-0.5) > 0.03 {
		t.Errorf("throttled %.4f of the writes once the bank is spent, want 0.5 ± 0.03", f)
	}
}

// ---- adaptive capacity ----

// adaptiveModel: 4 shards, the table provisioned 2,000 write units/s, at most 1,000 per
// partition, so each partition's share is 500/s, banked for 1 s; one partition offered
// 3,000 writes/s (Poisson), the others none; 8 s.
func adaptiveModel(adaptive bool) *sim.Model {
	m := &sim.Model{
		Seed: 14, Duration: 8 * sim.Second, Window: sim.Second, Network: 500 * sim.Microsecond,
		Nodes: make([]sim.Node, 4), ShardNode: []int{0, 1, 2, 3},
		Streams: []sim.Stream{{
			Name: "put", Op: sim.Write, Cost: 50 * sim.Microsecond,
			Arrivals: workload.NewPoisson(mechtest.Steady(3000)),
			Fields:   []workload.Generator{workload.NewUniform(1)},
			Planner:  keyspace.NewPointPlanner(keyDesign, keyspace.NewModulo(4), false),
		}},
		Mechanisms: on(scenario.PartitionLimits{WriteUnits: 1000, TableWriteUnits: 2000, Burst: sim.Second, Adaptive: adaptive}),
	}
	for i := range m.Nodes {
		m.Nodes[i] = sim.Node{Cores: 1}
	}
	return m
}

// TestAdaptiveCapacity. Seed 14; 24,000 writes. After window 0 (the banks), a partition
// without adaptive capacity is admitted its share, 500/s; with it, it borrows the idle
// partitions' capacity up to its maximum, 1,000/s. Windows 1-7, each ~3,000 writes: the
// admitted (ShardOps of the hot shard: one write is one subrequest) must be 500 ± 25 and
// 1,000 ± 50 (5%: the bucket level is continuous, so admissions track the refill closely);
// and in every window, the first included, at most the maximum, 1,000 × 1 s, plus one
// second's bank of the cap bucket, 1,000. The other partitions serve nothing.
func TestAdaptiveCapacity(t *testing.T) {
	first := map[bool]int64{}
	defer func() {
		mechtest.DocFigures(t, "adaptive", map[string]string{"adaptive.first": fmt.Sprintf("%s and %s", mechtest.GroupInt(first[false]), mechtest.GroupInt(first[true]))})
	}()
	for _, c := range []struct {
		adaptive bool
		want     float64
	}{{false, 500}, {true, 1000}} {
		t.Run(fmt.Sprintf("adaptive=%v", c.adaptive), func(t *testing.T) {
			r := sim.Run(adaptiveModel(c.adaptive))
			mechtest.Conserve(t, r)
			s := &r.Streams[0]
			key := keyDesign.Key([]uint64{0}, 0, 0)
			hot := keyspace.NewModulo(4).Shard(&key)
			nS := len(r.Shards)
			per := make([]int64, r.Windows)
			for w := range per {
				per[w] = r.ShardOps[w*nS+hot]
				if per[w] > 2000 {
					t.Errorf("window %d: %d writes admitted, more than the maximum 1,000/s plus a second's bank", w, per[w])
				}
				if w >= 1 && math.Abs(float64(per[w])-c.want) > 0.05*c.want {
					t.Errorf("window %d: %d writes admitted, want %.0f ± 5%%", w, per[w], c.want)
				}
			}
			for sh := range r.Shards {
				if sh != hot && r.Shards[sh].Ops != 0 {
					t.Errorf("idle shard %d served %d", sh, r.Shards[sh].Ops)
				}
			}
			first[c.adaptive] = per[0]
			t.Logf("admitted per window %v; throttled %d of %d", per, s.Failed[limits.Throttled], s.Offered)
		})
	}
}

// ---- determinism and allocations ----

// TestDeterministic runs each model above twice and requires identical Results
// (reflect.DeepEqual over the whole Result, histograms included).
func TestDeterministic(t *testing.T) {
	for name, mk := range map[string]func() *sim.Model{
		"write limit": writeLimitModel,
		"adaptive":    func() *sim.Model { return adaptiveModel(true) },
	} {
		t.Run(name, func(t *testing.T) {
			if a, b := sim.Run(mk()), sim.Run(mk()); !reflect.DeepEqual(a, b) {
				t.Errorf("two runs of the same model differ")
			}
		})
	}
}

// allocModel: Zipf writes and reads over 8 shards with clients that retry what is
// throttled, against adaptive limits they pass most of the time and are throttled by on
// the hottest partition.
func allocModel(dur sim.Time) *sim.Model {
	const shards = 8
	scheme := keyspace.NewModulo(shards)
	cli := sim.Client{Retries: 2, Backoff: sim.Millisecond, BackoffMax: 8 * sim.Millisecond}
	m := &sim.Model{
		Seed: 20, Duration: dur, Window: dur, Network: 200 * sim.Microsecond,
		Nodes: make([]sim.Node, shards), ShardNode: make([]int, shards),
		Streams: []sim.Stream{
			{Name: "r", Op: sim.Read, Cost: 100 * sim.Microsecond, Client: cli,
				Arrivals: workload.NewPoisson(mechtest.Steady(20000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, true)},
			{Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond, Client: cli,
				Arrivals: workload.NewPoisson(mechtest.Steady(8000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, false)},
		},
		Mechanisms: on(scenario.PartitionLimits{WriteUnits: 1100, ReadUnits: 2800, TableWriteUnits: 8000, TableReadUnits: 20000, Burst: sim.Second, Adaptive: true}),
	}
	for i := range m.Nodes {
		m.Nodes[i], m.ShardNode[i] = sim.Node{Cores: 4}, i
	}
	return m
}

// TestNoAllocs: allocModel's event loop allocates nothing in steady state, and its run
// throttles both streams and retries.
func TestNoAllocs(t *testing.T) {
	mechtest.NoAllocs(t, allocModel(100*sim.Second))
	r := sim.Run(allocModel(5 * sim.Second))
	mechtest.Conserve(t, r)
	for _, s := range r.Streams {
		if s.Failed[limits.Throttled] == 0 || s.Retries == 0 || s.Completed < s.Offered/2 {
			t.Errorf("stream %s: %d throttled, %d retries, %d of %d completed: want some throttled and retried, most completed", s.Name, s.Failed[limits.Throttled], s.Retries, s.Completed, s.Offered)
		}
	}
}
