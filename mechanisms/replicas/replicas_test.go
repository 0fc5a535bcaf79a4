package replicas

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/internal/docmark"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

var keyDesign = mechtest.OneFieldKey

// replicaModel: 3 single-core nodes, 3 shards (modulo), 2 followers each (follower k of a
// shard on node leader+k mod 3), for 3 s. Reads: one key read 10,000/s at a constant
// 20 µs, from any copy. Writes: one key written 1,000/s at a constant 100 µs on the leader
// and 50 µs to apply on each follower.
func replicaModel(reads bool) *sim.Model {
	m := &sim.Model{
		Seed: 18, Duration: 3 * sim.Second, Window: sim.Second, Network: 200 * sim.Microsecond,
		Nodes: []sim.Node{{Cores: 1}, {Cores: 1}, {Cores: 1}}, ShardNode: []int{0, 1, 2},
		Mechanisms: []sim.Setting{Replicas{Followers: 2, ReadAny: true, ApplyCost: []sim.Time{50 * sim.Microsecond}}},
	}
	scheme := keyspace.NewModulo(3)
	if reads {
		m.Streams = []sim.Stream{{
			Name: "get", Op: sim.Read, Cost: 20 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewPoisson(mechtest.Steady(10000)),
			Fields:   []workload.Generator{workload.NewUniform(1)},
			Planner:  keyspace.NewPointPlanner(keyDesign, scheme, true),
		}}
	} else {
		m.Streams = []sim.Stream{{
			Name: "put", Op: sim.Write, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
			Arrivals: workload.NewPoisson(mechtest.Steady(1000)),
			Fields:   []workload.Generator{workload.NewUniform(1)},
			Planner:  keyspace.NewPointPlanner(keyDesign, scheme, false),
		}}
	}
	return m
}

// TestReplicas. Seed 18.
//   - Reads (30,000 of one key, ReadAny): each goes to the leader or one of the 2 followers
//     at random, so each node serves a third: NodeBusy (constant cost, so busy = 20 µs ×
//     reads served) a third of the total within ±0.012 (the share's standard deviation is
//     0.0027).
//   - Writes (3,000 of one key): the leader's node is busy writes × 100 µs and each
//     follower's node writes × 50 µs, within 0.5% (only work cut at the end of the run
//     differs).
func TestReplicas(t *testing.T) {
	key := keyDesign.Key([]uint64{0}, 0, 0)
	leader := keyspace.NewModulo(3).Shard(&key)
	figs := map[string]string{}
	defer func() { docmark.Figures(t, "../../docs/mitigations.md", "replicas", figs) }()
	t.Run("reads", func(t *testing.T) {
		r := sim.Run(replicaModel(true))
		mechtest.Conserve(t, r)
		var total sim.Time
		for n := range r.Nodes {
			total += r.Nodes[n].Busy
		}
		figs["replicas.reads"] = units.Count(r.Streams[0].Offered)
		var shares []string
		for n := range r.Nodes {
			shares = append(shares, fmt.Sprintf("%.4f", float64(r.Nodes[n].Busy)/float64(total)))
		}
		figs["replicas.shares"] = strings.Join(shares[:len(shares)-1], ", ") + " and " + shares[len(shares)-1]
		for n := range r.Nodes {
			f := float64(r.Nodes[n].Busy) / float64(total)
			t.Logf("node %d (leader %v): %.4f of the reads' work", n, n == leader, f)
			if math.Abs(f-1.0/3) > 0.012 {
				t.Errorf("node %d does %.4f of the reads' work, want 1/3 ± 0.012", n, f)
			}
		}
		if want := sim.Time(r.Streams[0].Offered) * 20 * sim.Microsecond; math.Abs(float64(total-want)) > 0.005*float64(want) {
			t.Errorf("nodes busy %v in all, want reads × 20 µs = %v", total, want)
		}
	})
	t.Run("writes", func(t *testing.T) {
		r := sim.Run(replicaModel(false))
		mechtest.Conserve(t, r)
		w := r.Streams[0].Offered
		for n := range r.Nodes {
			want := sim.Time(w) * 50 * sim.Microsecond
			if n == leader {
				want = sim.Time(w) * 100 * sim.Microsecond
			}
			t.Logf("node %d (leader %v): busy %v, want %v", n, n == leader, r.Nodes[n].Busy, want)
			if n == leader {
				figs["replicas.leader_busy"] = fmt.Sprintf("%g ms", r.Nodes[n].Busy.Millis())
			} else if _, ok := figs["replicas.follower_busy"]; !ok {
				figs["replicas.follower_busy"] = fmt.Sprintf("%g ms", r.Nodes[n].Busy.Millis())
			}
			if math.Abs(float64(r.Nodes[n].Busy-want)) > 0.005*float64(want) {
				t.Errorf("node %d busy %v, want %v within 0.5%%", n, r.Nodes[n].Busy, want)
			}
		}
	})
}

// allocModel: 4 nodes of 2 cores, 4 shards (modulo), each with 2 followers: Zipf reads
// (10,000/s of a constant 100 µs, from any copy) and Zipf writes (4,000/s of a constant
// 100 µs on the leader, 50 µs to apply on each follower), about a fifth of the cores.
func allocModel(dur sim.Time) *sim.Model {
	scheme := keyspace.NewModulo(4)
	m := &sim.Model{
		Seed: 21, Duration: dur, Window: dur, Network: 200 * sim.Microsecond,
		Nodes: make([]sim.Node, 4), ShardNode: make([]int, 4),
		Streams: []sim.Stream{
			{Name: "r", Op: sim.Read, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
				Arrivals: workload.NewPoisson(mechtest.Steady(10000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, true)},
			{Name: "w", Op: sim.Write, Cost: 100 * sim.Microsecond, Service: sim.Service{Kind: sim.Constant},
				Arrivals: workload.NewPoisson(mechtest.Steady(4000)),
				Fields:   []workload.Generator{workload.NewZipf(1_000_000, 0.99, true)},
				Planner:  keyspace.NewPointPlanner(keyDesign, scheme, false)},
		},
		Mechanisms: []sim.Setting{Replicas{Followers: 2, ReadAny: true, ApplyCost: []sim.Time{0, 50 * sim.Microsecond}}},
	}
	for i := range m.Nodes {
		m.Nodes[i], m.ShardNode[i] = sim.Node{Cores: 2}, i
	}
	return m
}

// TestNoAllocs: allocModel's event loop allocates nothing in steady state, reads routed to
// any copy and writes applied on the followers; and its run does that work: the nodes are
// busy reads × 100 µs + writes × (100 µs + 2 × 50 µs) in all, within 0.5% (work cut at the
// end of the run), and no node does less than a fifth of it (the reads spread over the
// copies).
func TestNoAllocs(t *testing.T) {
	mechtest.NoAllocs(t, allocModel(100*sim.Second))
	r := sim.Run(allocModel(2 * sim.Second))
	mechtest.Conserve(t, r)
	var total sim.Time
	for n := range r.Nodes {
		total += r.Nodes[n].Busy
	}
	want := sim.Time(r.Streams[0].Offered)*100*sim.Microsecond + sim.Time(r.Streams[1].Offered)*200*sim.Microsecond
	if math.Abs(float64(total-want)) > 0.005*float64(want) {
		t.Errorf("nodes busy %v in all, want reads × 100 µs + writes × 200 µs = %v", total, want)
	}
	for n := range r.Nodes {
		if f := float64(r.Nodes[n].Busy) / float64(total); f < 0.2 {
			t.Errorf("node %d does %.3f of the work, want at least 0.2 with every read from any of 3 copies", n, f)
		}
	}
}
