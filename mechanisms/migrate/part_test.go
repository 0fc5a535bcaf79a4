package migrate_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/mechanisms/migrate"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestTenantMigrationModel: migrate.tenant builds a migration of one tenant: its share
// of the rows is its categorical weight (6 of 12), its new shards go to the nodes holding
// the fewest shards (nodes 2 and 3 hold one shard each, nodes 0 and 1 two), the backfill
// reads the one old shard its rows live on (the key is the tenant alone), and every
// stream draws the tenant field.
func TestTenantMigrationModel(t *testing.T) {
	src := []byte(`name = "tenant"
duration = "1m"
[cluster]
nodes = 4
[table]
history = "10m"
[table.fields]
tenant = { gen = "categorical", values = ["acme", "b", "c", "d", "e", "f", "g"], weights = [6, 1, 1, 1, 1, 1, 1] }
id = { gen = "uniform", n = 1000 }
[keyspace]
shards = 6
key = ["tenant"]
[[streams]]
name = "w"
op = "write"
rate = 100
cost = "1ms"
[[streams]]
name = "r"
op = "read"
rate = 10
cost = "0.5ms"
[[actions]]
at = "30s"
migrate = { tenant = { field = "tenant", value = "acme" }, backfill_rate = 1000 }
`)
	sc, err := scenarios.LoadBytes("tenant.toml", src, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rs := sc.Variants[0].Spec
	m := compile.Model(rs)
	g := migrationOf(m)
	if g == nil || g.Tenant == nil {
		t.Fatalf("no tenant migration: %+v", g)
	}
	fi := slices.Index(rs.FieldNames, "tenant")
	if g.Tenant.Field != fi || g.Tenant.Value != 0 || g.Tenant.Share != 0.5 || g.HistoryRows != 60_000 {
		t.Errorf("tenant field %d, value %d, share %v, history %d: want field %d, value 0 (acme), share 0.5, 60,000 rows",
			g.Tenant.Field, g.Tenant.Value, g.Tenant.Share, g.HistoryRows, fi)
	}
	// One shard (the key is the tenant alone: more would hold nothing), on the first node
	// holding the fewest shards (6 shards on 4 nodes: nodes 2 and 3 hold one).
	if len(g.ShardNode) != 1 || g.ShardNode[0] != 2 {
		t.Errorf("tenant's shards on nodes %v, want [2]", g.ShardNode)
	}
	want := m.Streams[0].Planner.Plan(nil, nil, make([]uint64, 2), 0)[0].Shard // acme is value 0
	for _, s := range g.Tenant.From {
		if int32(s) != want {
			t.Fatalf("backfill reads shards %v, want shard %d only (where acme's rows are)", g.Tenant.From, want)
		}
	}
	for i, st := range m.Streams {
		if st.Fields[fi] == nil {
			t.Errorf("stream %d does not draw the tenant field", i)
		}
	}
}

// tenantScenario is a table of 5 shards on 4 nodes placed by shardNodes (and with the
// cluster's other keys in cluster), keyed as keyspace says, whose tenant acme (value 0)
// has half of the rows and moves alone at 30s to shards of its own (shards of them, on
// the default nodes).
func tenantScenario(keyspace string, shards int, shardNodes string, cluster ...string) []byte {
	return []byte(fmt.Sprintf(`name = "tenant"
duration = "1m"
[cluster]
nodes = 4
shard_nodes = %s
%s
[table]
history = "10m"
[table.fields]
tenant = { gen = "categorical", values = ["acme", "b", "c", "d", "e", "f", "g"], weights = [6, 1, 1, 1, 1, 1, 1] }
id = { gen = "uniform", n = 1000 }
[keyspace]
shards = 5
%s
[[streams]]
name = "w"
op = "write"
rate = 100
cost = "1ms"
[[actions]]
at = "30s"
migrate = { tenant = { field = "tenant", value = "acme" }, shards = %d, backfill_rate = 1000 }
`, shardNodes, strings.Join(cluster, "\n"), keyspace, shards))
}

// tenantMove builds the scenario's model and returns the old shards that hold acme's rows
// (each once), the old shards' nodes, the nodes of acme's new shards and explain's notes.
func tenantMove(t *testing.T, src []byte) (from, shardNode, nodes []int, notes string) {
	t.Helper()
	sc, err := scenarios.LoadBytes("tenant.toml", src, scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	m := compile.Model(sc.Variants[0].Spec)
	notes = strings.Join(compile.Explain("tenant", sc.Variants[0].Spec).Notes, "\n")
	return slices.Compact(slices.Clone(migrationOf(m).Tenant.From)), m.ShardNode, migrationOf(m).ShardNode, notes
}

// TestTenantNodesAvoidOldShards: by default a tenant's new shards go to the nodes that
// hold none of its old shards (with replicas, whose copies meet none of theirs), the
// fewest shards first; only when no node qualifies are all nodes candidates. (The rule
// before it took the nodes holding the fewest shards, the tenant's own node included.)
func TestTenantNodesAvoidOldShards(t *testing.T) {
	// The key is the tenant alone: acme's rows are one partition on one shard, which
	// does not depend on the placement. Place that shard alone on node 0, one shard on
	// each of nodes 1 and 2 and two on node 3: node 0 holds the fewest shards and has the
	// lowest id, yet it is the node the move is to relieve. The new shard goes to node 1.
	hot, _, _, _ := tenantMove(t, tenantScenario(`key = ["tenant"]`, 1, "[0, 1, 2, 3, 3]"))
	if len(hot) != 1 {
		t.Fatalf("acme's rows on shards %v, want one shard (the key is the tenant alone)", hot)
	}
	place := slices.Insert([]int{1, 2, 3, 3}, hot[0], 0)
	from, shardNode, nodes, notes := tenantMove(t, tenantScenario(`key = ["tenant"]`, 1, strings.ReplaceAll(fmt.Sprint(place), " ", ", ")))
	if !slices.Equal(from, hot) || shardNode[hot[0]] != 0 {
		t.Fatalf("acme's rows on shards %v of nodes %v, want shard %v on node 0", from, shardNode, hot)
	}
	if !slices.Equal(nodes, []int{1}) {
		t.Errorf("one shard: acme's new shard on node %v, want [1] (node 0 holds its old shard)", nodes)
	}
	if want := "(its shard on node 1: by default the nodes that hold none of its rows, those holding the fewest shards first)"; !strings.Contains(notes, want) {
		t.Errorf("explain's notes do not say %q:\n%s", want, notes)
	}

	// With one follower per shard, node 1 holds the follower of acme's shard (on node 0),
	// and a new shard on node 3 would have its follower on node 0: node 2 is the one
	// whose copies land on neither.
	replicated := strings.ReplaceAll(fmt.Sprint(place), " ", ", ")
	_, _, nodes, notes = tenantMove(t, tenantScenario(`key = ["tenant"]`, 1, replicated, "replicas = 1"))
	if !slices.Equal(nodes, []int{2}) {
		t.Errorf("one shard, one follower each: acme's new shard on node %v, want [2] (nodes 0 and 1 hold copies of its old shard, node 3's follower is on node 0)", nodes)
	}
	if want := "(its shard on node 2: by default the nodes that hold no copy of its rows and have no follower on one that does"; !strings.Contains(notes, want) {
		t.Errorf("explain's notes do not say %q:\n%s", want, notes)
	}

	// A directory gives acme shards 0 and 1 (nodes 0 and 1, one shard each); nodes 2 and
	// 3 hold the others, two and one. Two new shards: node 3 (one shard), then node 2
	// (two shards, as node 3 now holds), never nodes 0 or 1.
	dir := `scheme = "directory"
key = ["tenant", "id"]
directory = [ { field = "tenant", value = "acme", shards = [0, 1] } ]`
	from, _, nodes, _ = tenantMove(t, tenantScenario(dir, 2, "[0, 1, 2, 2, 3]"))
	if !slices.Equal(from, []int{0, 1}) {
		t.Fatalf("acme's rows on shards %v, want [0 1] (its directory entry)", from)
	}
	if !slices.Equal(nodes, []int{3, 2}) {
		t.Errorf("two shards: acme's new shards on nodes %v, want [3 2] (nodes 0 and 1 hold its old shards)", nodes)
	}

	// Hashed by (tenant, id), acme's rows are on every shard, so every node holds some:
	// the fall-back takes the node holding the fewest shards, the lowest id among equals
	// (node 1; then node 2, as node 1 holds two).
	from, _, nodes, notes = tenantMove(t, tenantScenario(`key = ["tenant", "id"]`, 2, "[0, 0, 1, 2, 3]"))
	if len(from) != 5 {
		t.Fatalf("acme's rows on shards %v, want all 5 (hashed with its ids)", from)
	}
	if !slices.Equal(nodes, []int{1, 2}) {
		t.Errorf("fall-back: acme's new shards on nodes %v, want [1 2] (the fewest shards first)", nodes)
	}
	if want := "(its shards on nodes 1, 2: every node holds some of its rows, so the nodes holding the fewest shards)"; !strings.Contains(notes, want) {
		t.Errorf("explain's notes do not say %q:\n%s", want, notes)
	}
}

// migrationOf is the migration among m's mechanisms, nil when none.
func migrationOf(m *sim.Model) *migrate.Migration {
	for _, x := range m.Mechanisms {
		if g, ok := x.(*migrate.Migration); ok {
			return g
		}
	}
	return nil
}
