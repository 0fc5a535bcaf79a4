package split_test

import (
	"slices"
	"strings"
	"testing"

	_ "github.com/shardsim/shardsim/mechanisms/limits" // split_for_heat is a key of its table
	"github.com/shardsim/shardsim/mechanisms/mechtest"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/sim"
)

// TestKeys: [keyspace.split], declared here, resolves into scenario.SplitPolicy and the
// most shards splits may reach (4 x shards unless max_shards is given), as does
// split_for_heat of [keyspace.limits]; without either, or with both triggers at 0, nothing
// splits and the shards are the most there are. Each bad value is reported at its dotted
// key, a misspelt key with a suggestion, and a scheme that cannot split, an index or a
// rebalance refuses splits.
func TestKeys(t *testing.T) {
	for _, c := range []struct {
		extra string
		want  *scenario.SplitPolicy
		most  int
	}{
		{"", nil, 4},
		{"[keyspace.split]\nrows = 0\nload = 0.0\n", nil, 4},
		{"[keyspace.split]\nrows = 500\n", &scenario.SplitPolicy{Rows: 500, Move: 30 * sim.Second}, 16},
		{"[keyspace.split]\nload = 0.75\nmove = \"1m\"\nmax_shards = 48\n", &scenario.SplitPolicy{Load: 0.75, Move: sim.Minute}, 48},
		{"[keyspace.limits]\nsplit_for_heat = true\n", &scenario.SplitPolicy{Move: 30 * sim.Second, Throttled: true}, 16},
		{"[keyspace.limits]\nsplit_for_heat = true\n[keyspace.split]\nmove = \"0s\"\n", &scenario.SplitPolicy{Throttled: true}, 16},
	} {
		s, probs := mechtest.Resolve(t, c.extra)
		if len(probs) > 0 {
			t.Fatalf("%q: %q", c.extra, probs)
		}
		if (s.Split == nil) != (c.want == nil) || (s.Split != nil && *s.Split != *c.want) || s.MaxShards != c.most {
			t.Errorf("%q: policy %+v, max shards %d; want %+v, %d", c.extra, s.Split, s.MaxShards, c.want, c.most)
		}
	}
	for _, c := range []struct{ extra, want string }{
		{"[keyspace.split]\nrows = -1\n", "keyspace.split.rows: must not be negative (got -1); 0 turns size splits off"},
		{"[keyspace.split]\nload = 1.5\n", "keyspace.split.load: must be a fraction of the node's cores above 0 and at most 1, or 0 for no load splits (got 1.5)"},
		{"[keyspace.split]\nrows = 10\nmove = \"-1s\"\n", `keyspace.split.move: must not be negative (got "-1s")`},
		{"[keyspace.split]\nrows = 10\nmax_shards = 2\n", "keyspace.split.max_shards: must be at least keyspace.shards = 4 (got 2)"},
		{"[keyspace.split]\nrows = 10\nmax_shards = 200000\n", "keyspace.split.max_shards: must be at most 100000 (got 200000)"},
		{"[keyspace.split]\nrow = 10\n", `keyspace.split.row: unknown key; did you mean "rows"?`},
		{"[keyspace.split]\nrows = \"many\"\n", `keyspace.split.rows: expected an integer, got string "many"`},
		{"[keyspace.split]\nrows = 10\n[[indexes]]\nname = \"by_id\"\nkey = [\"id\"]\nshards = 2\n", "indexes: not with shard splits ([keyspace.split] or split_for_heat): a split would renumber the shards an index's follow"},
		{"[keyspace.split]\nrows = 10\n[[actions]]\nat = \"1s\"\nadd_nodes = 1\nrebalance = { rate = 100 }\n", "actions[0].add_nodes: cannot be combined with keyspace.split (automatic splits) yet"},
	} {
		_, probs := mechtest.Resolve(t, c.extra)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", c.extra, probs, c.want)
		}
	}
	for _, c := range []struct{ scheme, extra, want string }{
		{"scheme = \"redis_cluster\"\n", "[keyspace.split]\nrows = 10\n", `keyspace.split: not with scheme = "redis_cluster": a Redis Cluster moves slots only when told to (resharding), never by itself`},
		{"scheme = \"directory\"\ndirectory = [{ field = \"id\", value = 1, shards = [0] }]\n", "[keyspace.limits]\nsplit_for_heat = true\n", `keyspace.limits.split_for_heat: automatic splits need scheme = "range" or "hash": a directory places its rows by hand`},
	} {
		src := strings.Replace(mechtest.Minimal, "[keyspace]\n", "[keyspace]\n"+c.scheme, 1) + c.extra
		_, probs := mechtest.ResolveFile(t, src)
		if !slices.Contains(probs, c.want) {
			t.Errorf("%q: problems %q, want %q among them", src, probs, c.want)
		}
	}
}

// TestWindowsHeld: a variant whose shards split, by [keyspace.split] or split_for_heat,
// keeps its shard series however many shard-windows it has (scenario.Resolved.Streamed is
// false), as this folder registers; the same variant without splits streams them above
// scenario.StreamShardCells.
func TestWindowsHeld(t *testing.T) {
	defer func(n int64) { scenario.StreamShardCells = n }(scenario.StreamShardCells)
	scenario.StreamShardCells = 0
	for _, c := range []struct {
		extra    string
		streamed bool
	}{
		{"", true},
		{"[keyspace.split]\nrows = 500\n", false},
		{"[keyspace.split]\nrows = 0\nload = 0.0\n", true}, // both triggers off: no splits
	} {
		s, probs := mechtest.Resolve(t, c.extra)
		if len(probs) > 0 {
			t.Fatal(probs)
		}
		if got := s.Streamed(); got != c.streamed {
			t.Errorf("%q: streamed %v, want %v", c.extra, got, c.streamed)
		}
	}
}
