package split_test

import (
	"fmt"
	"reflect"
	"testing"

	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/mechanisms/split"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

var keyDesign = mechtest.OneFieldKey

// ---- split by load ----

// splitModel: a range scheme of 3 shards (splits at keys 1000 and 2000) wrapped in a
// splitter of at most 8; writes of a time-ordered sequence id (all far above 2000, so all on
// shard 2 at first) at 800/s (uniform), constant 1 ms each on single-core nodes: load 0.8
// on whichever shard takes the newest keys. Split above load 0.5, moved at once; 4 nodes,
// 6 s.
func splitModel() *sim.Model {
	rng := keyspace.NewRange([]keyspace.Key{{N: 1, P: [keyspace.MaxParts]uint64{1000}}, {N: 1, P: [keyspace.MaxParts]uint64{2000}}})
	sp := keyspace.NewSplitter(rng, 8)
	return &sim.Model{
		Seed: 17, Duration: 6 * sim.Second, Window: sim.Second, Network: 500 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1}, {Cores: 1}, {Cores: 1}, {Cores: 1}}, ShardNode: []int{0, 1, 2},
		Streams: []sim.Stream{{
			Name: "put", Op: sim.Write, Cost: sim.Millisecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewUniformArrivals(mechtest.Steady(800)),
			Fields:   []workload.Generator{workload.NewSequence()},
			Planner:  keyspace.NewPointPlanner(keyDesign, sp, false),
		}},
		Mechanisms: []sim.Setting{split.Split{Policy: scenario.SplitPolicy{Load: 0.5, Move: 0}, Splitter: sp}},
	}
}

// TestSplitByLoad. Seed 17 (deterministic arrivals and costs); 4,800 writes. Each window
// the shard taking the newest keys runs at load 0.8 > 0.5 and splits at the window's end;
// the new shard takes the upper half, where every later (larger) key goes: the heat moves
// with it. So the run must end with more than 3 shards (one split per window but the last:
// 8, the splitter's maximum), its events must hold splits and moves, the busiest shard of
// the last window must be one made by a split, and shard 2, the first hot shard, must
// serve nothing from window 2 on.
func TestSplitByLoad(t *testing.T) {
	r := sim.Run(splitModel())
	mechtest.Conserve(t, r)
	nS := len(r.Shards)
	var splits, moves int
	for _, ev := range r.Events {
		switch ev.Kind {
		case sim.EventSplit:
			splits++
		case sim.EventMove:
			moves++
		}
	}
	t.Logf("%d shards at the end, %d splits, %d moves; events %v", nS, splits, moves, r.Events)
	if nS <= 3 || splits == 0 || moves == 0 {
		t.Fatalf("%d shards, %d splits, %d moves: want the hot shard split and moved", nS, splits, moves)
	}
	if nS != 3+splits {
		t.Errorf("%d shards, want 3 + %d splits", nS, splits)
	}
	last := r.Windows - 1
	busiest := 0
	for s := 0; s < nS; s++ {
		if r.ShardBusy[last*nS+s] > r.ShardBusy[last*nS+busiest] {
			busiest = s
		}
	}
	t.Logf("last window: busiest shard %d (parent %d, created %v), load %.2f", busiest, r.Shards[busiest].Parent, r.Shards[busiest].Created, r.ShardUtilization(last, busiest))
	mechtest.DocFigures(t, "splitload", map[string]string{"splitload.shards": fmt.Sprint(nS), "splitload.splits": fmt.Sprint(splits),
		"splitload.busiest": fmt.Sprint(busiest), "splitload.load": fmt.Sprintf("%.0f%%", 100*r.ShardUtilization(last, busiest))})
	if r.Shards[busiest].Parent < 0 {
		t.Errorf("the last window's busiest shard %d is an initial shard; want one made by a split", busiest)
	}
	for w := 2; w < r.Windows; w++ {
		if ops := r.ShardOps[w*nS+2]; ops != 0 {
			t.Errorf("window %d: shard 2 served %d writes after its heat moved to the split-off shard", w, ops)
		}
	}
}

// TestSplitDeterministic: two runs of the same model give the same Result, whole.
func TestSplitDeterministic(t *testing.T) {
	if a, b := sim.Run(splitModel()), sim.Run(splitModel()); !reflect.DeepEqual(a, b) {
		t.Fatal("two runs of the same model differ")
	}
}

// TestSplitNoAllocs: with splits on, the event loop allocates nothing per request: each
// request's key remembered for its shard, and the shards checked at each window's end.
// Windows of 20 s: the five splits (up to the splitter's 8 shards) are made in the warmup,
// at the ends of the first five windows, and the measure sees fewer window ends than runs
// (a closing window's latency histograms are the core's own allocation).
func TestSplitNoAllocs(t *testing.T) {
	m := splitModel()
	m.Duration, m.Window = 1000*sim.Second, 20*sim.Second
	mechtest.NoAllocs(t, m)
}

// ---- split for heat ----

// TestSplitThrottled: with SplitPolicy.Throttled, a shard whose subrequests a partition
// limit throttles in two windows running splits at the end of the second, whose Value is
// the windows; window 1, the first throttled, splits nothing. One shard of 1,000 keys, its
// writes at 2,000/s (Poisson) against 1,000 units a second banked 1 s: its bank lasts
// about 1 s, so windows 1 and 2 throttle and it splits at 3 s, the end of window 2.
func TestSplitThrottled(t *testing.T) {
	sp := keyspace.NewSplitter(keyspace.NewModulo(1), 4)
	m := &sim.Model{
		Seed: 3, Duration: 4 * sim.Second, Window: sim.Second, Network: 500 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1}, {Cores: 1}}, ShardNode: []int{0},
		Streams: []sim.Stream{{
			Name: "put", Op: sim.Write, Cost: 100 * sim.Microsecond,
			Arrivals: workload.NewPoisson(mechtest.Steady(2000)),
			Fields:   []workload.Generator{workload.NewUniform(1000)},
			Planner:  keyspace.NewPointPlanner(keyDesign, sp, false),
		}},
		Mechanisms: []sim.Setting{
			split.Split{Policy: scenario.SplitPolicy{Throttled: true, Move: sim.Second}, Splitter: sp},
			limits.Limits{Settings: scenario.PartitionLimits{WriteUnits: 1000, ReadUnits: 1000, Burst: sim.Second}},
		},
	}
	r := sim.Run(m)
	var splits []sim.Event
	for _, ev := range r.Events {
		if ev.Kind == sim.EventSplit {
			splits = append(splits, ev)
		}
	}
	if win := r.Streams[0].Win; win[1].Failed[limits.Throttled] == 0 || win[2].Failed[limits.Throttled] == 0 || len(splits) != 1 {
		t.Fatalf("%d and %d writes throttled in windows 1 and 2, %d splits: want both throttled, and one split", win[1].Failed[limits.Throttled], win[2].Failed[limits.Throttled], len(splits))
	}
	if ev := splits[0]; split.Cause(ev.Why) != split.Throttled || ev.Value != 2 || ev.Shard != 0 || ev.At < 3*sim.Second || ev.At >= 3*sim.Second+sim.Millisecond {
		t.Errorf("split %+v: want shard 0 for split.Throttled, value 2 (windows), at the end of window 2", ev)
	}
}

// TestSplitOneCore: a run with splits stays on one engine, for the reason it gave when the
// engine named splits itself, and RunOn gives the same Result as Run.
func TestSplitOneCore(t *testing.T) {
	if why := sim.OneCoreReason(splitModel()); why != "shard splits move shards between nodes" {
		t.Errorf("OneCoreReason %q", why)
	}
	one, two := sim.Run(splitModel()), sim.RunOn(2, splitModel)
	if two.Cores != 1 || two.OneCore != "shard splits move shards between nodes" {
		t.Errorf("RunOn: %d cores, one core because %q", two.Cores, two.OneCore)
	}
	two.Cores, two.OneCore = one.Cores, one.OneCore
	if !reflect.DeepEqual(one, two) {
		t.Error("RunOn's result differs from Run's")
	}
}
