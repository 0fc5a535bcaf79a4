package rebalance_test

import (
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/mechanisms/rebalance"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestRebalanceModel: an add_nodes action appends its nodes after the cluster's, with the
// cluster's cores, keeps every shard on the first nodes, and carries the rate, the row
// costs (the streams' by default) and the history (1,000 writes/s over 10 minutes).
func TestRebalanceModel(t *testing.T) {
	src := []byte(`name = "reb"
duration = "1m"
[cluster]
nodes = 2
cores = 3
[table]
history = "10m"
[table.fields]
id = { gen = "uniform", n = 1000 }
[keyspace]
shards = 8
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 1000
cost = "1ms"
[[streams]]
name = "r"
op = "read"
rate = 10
cost = "0.5ms"
[[actions]]
at = "30s"
add_nodes = 3
rebalance = { rate = 5000, max_cpu = 0.5, write_cost = "20us", parallel = 2 }
`)
	sc, err := scenarios.LoadBytes("reb.toml", src, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := compile.Model(sc.Variants[0].Spec)
	var g *rebalance.Rebalance
	if len(m.Mechanisms) > 0 {
		g, _ = m.Mechanisms[0].(*rebalance.Rebalance)
	}
	if g == nil || len(m.Nodes) != 5 || m.Nodes[4].Cores != 3 || g.First != 2 || g.At != 30*sim.Second {
		t.Fatalf("nodes %v, rebalance %+v: want 5 nodes of 3 cores, the last 3 joining at 30s, first among the mechanisms", m.Nodes, g)
	}
	for s, n := range m.ShardNode {
		if n >= 2 {
			t.Errorf("shard %d on node %d, which joins later", s, n)
		}
	}
	if g.Rate != 5000 || g.MaxCPU != 0.5 || g.ReadCost != 500*sim.Microsecond || g.WriteCost != 20*sim.Microsecond || g.HistoryRows != 600_000 || g.Parallel != 2 {
		t.Errorf("rebalance %+v: want rate 5000, max_cpu 0.5, read 500us, write 20us, 600,000 history rows, 2 moves at once", g)
	}
	if acts, ok := m.Mechanisms[len(m.Mechanisms)-1].(operator.Actions); !ok || len(acts) != 1 || acts[0].Change != operator.Noted || acts[0].At != 30*sim.Second {
		t.Errorf("mechanisms %+v: want the actions last, one only noted (add_nodes) at 30s", m.Mechanisms)
	}
}
