package report

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// These tests build each hotspot the diagnosis tells apart as a small, short run (seed 5,
// 8 one-core nodes with a shard each, 1 s windows, every request sampled for detection)
// and check that it is named by the label whose remedy fits: one hot key (cache, copies,
// write sharding, batching a locked row), a dominant tenant (a directory entry), a
// monotonic key (a composite key or a salt). Placement is TestDiagnosePlacement's.

// cureBase is the common part; each case appends its table, key and streams.
const cureBase = `name = "cure"
seed = 5
duration = "4s"
window = "1s"

[cluster]
nodes = 8
cores = 1

[detect]
sample_every = 1
`

// cureRun runs the scenario and returns its diagnosis.
func cureRun(t *testing.T, src string) []Diagnosis {
	t.Helper()
	sc, err := scenarios.LoadBytes("cure.toml", []byte(cureBase+src), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	v := sc.Variants[0]
	run := Run{Variant: describeVariant(v), Result: sim.Run(v.Model())}
	return Summarize(describeScenario(sc), []Run{run}).Variants[0].Diagnosis
}

// only returns the diagnoses of one kind.
func only(ds []Diagnosis, kind string) []Diagnosis {
	var out []Diagnosis
	for _, d := range ds {
		if d.Kind == kind {
			out = append(out, d)
		}
	}
	return out
}

func TestDiagnoseNamesTheCure(t *testing.T) {
	cases := []struct {
		name, src string
		kind      string   // the label the case must get
		not       []string // labels it must not get
		says      []string // words its message must hold
	}{{
		// A viral item: Zipf(1.6) over a million items gives rank 0 about 44% of 3,000
		// views/s of 0.5 ms, 0.66 of a core on its shard against about 0.1 elsewhere. One
		// item, however popular, is not a tenant: a directory cannot spread it.
		name: "viral item", kind: "hot_key", not: []string{"dominant_tenant"},
		says: []string{"cannot be spread by any key design", "cache it"},
		src: `[table.fields]
item_id = { gen = "zipf", n = 1_000_000, s = 1.6 }
[keyspace]
scheme = "hash"
shards = 8
key = ["item_id"]
[[streams]]
name = "view"
op = "read"
rate = 3000
cost = "0.5ms"
`,
	}, {
		// A single counter row every write increments: 1,500 writes/s of 0.5 ms on one
		// shard, 75% of its core; the rest idle.
		name: "counter row", kind: "hot_key", not: []string{"dominant_tenant"},
		says: []string{"writes cannot be cached", "N counter rows", "lock"},
		src: `[table.fields]
counter = { gen = "uniform", n = 1 }
[keyspace]
scheme = "hash"
shards = 8
key = ["counter"]
[[streams]]
name = "like"
op = "write"
rate = 1500
cost = "0.5ms"
`,
	}, {
		// A dominant tenant: tenant 0 has weight 50 of 99 among 50 tenants, so about half
		// of 1,500 orders/s land on its shard (about 38% of a core from it alone, more
		// with its neighbours), and its orders are many rows.
		name: "dominant tenant", kind: "dominant_tenant", not: []string{"hot_key"},
		says: []string{"directory"},
		src: `[table.fields]
tenant_id = { gen = "categorical", count = 50, weights = [50, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1] }
order_id = { gen = "uuid" }
[keyspace]
scheme = "hash"
shards = 8
key = ["tenant_id"]
[[streams]]
name = "order"
op = "write"
rate = 2000
cost = "0.5ms"
`,
	}, {
		// Small tenants at their fair share beside a big one: of 8 tenants hashed over 8
		// shards, tenant 3 has weight 7 of 14 (half of 2,000 orders/s of 0.6 ms: 0.6 of a
		// core) and each other tenant 1/14 = 7.1%, above hotKeyShare (5%) yet under its
		// fair share of 1/8 = 12.5%. Tenants 4, 5 and 6 hash to tenant 3's shard (shard 1;
		// 0.86 of its core in all): it is hot because of tenant 3, and they are no hot keys.
		name: "fair-share tenants beside a big one", kind: "dominant_tenant", not: []string{"hot_key", "hot_shard_many_keys"},
		says: []string{"tenant_id=3 takes", "its shard 1 runs", "directory"},
		src: `[table.fields]
tenant_id = { gen = "categorical", count = 8, weights = [1, 1, 1, 7, 1, 1, 1, 1] }
[keyspace]
scheme = "hash"
shards = 8
key = ["tenant_id"]
[[streams]]
name = "order"
op = "write"
rate = 2000
cost = "0.6ms"
`,
	}, {
		// Too few keys for the shards: 6 equal tenants hashed over 8 shards, 2,400 reads/s
		// of 0.5 ms. Shard 1 gets three of them (half of the reads, 60% of its core) while
		// most shards get none; each of the three is at its fair share, 1/6, so none is a
		// hot key: the shard is hot for the key's few values.
		name: "few keys at their fair share", kind: "hot_shard_many_keys", not: []string{"hot_key", "dominant_tenant"},
		says: []string{"within 2 times the 16.7% each of the 6 keys", "too few keys"},
		src: `[table.fields]
tenant_id = { gen = "categorical", count = 6 }
[keyspace]
scheme = "hash"
shards = 8
key = ["tenant_id"]
[[streams]]
name = "view"
op = "read"
rate = 2400
cost = "0.5ms"
`,
	}, {
		// The celebrity after a split by load: Zipf(1.3) gives rank 0 about 25% of 4,000
		// reads/s of 0.5 ms, so her shard runs near 70% and splits; the split hands her key
		// to the new shard, which cannot divide it. The hot shard of the busiest window is
		// her old one: a hot key, not many keys to split further.
		name: "celebrity after a split", kind: "hot_key", not: []string{"hot_shard_many_keys", "dominant_tenant"},
		says: []string{"a split cannot divide one key", "cache it"},
		src: `[table.fields]
user_id = { gen = "zipf", n = 1_000_000, s = 1.3 }
[keyspace]
scheme = "hash"
shards = 8
key = ["user_id"]
split = { load = 0.6, move = "1s", max_shards = 16 }
[[streams]]
name = "view"
op = "read"
rate = 4000
cost = "0.5ms"
`,
	}, {
		// A monotonic key: a sequence id, range-sharded over 8 shards cut from an hour of
		// history, so every new id lands on the last shard: 1,500 writes/s of 0.5 ms.
		name: "monotonic key", kind: "monotonic_key", not: []string{"hot_key", "dominant_tenant"},
		says: []string{"grows with time"},
		src: `[table]
history = "1h"
[table.fields]
id = { gen = "sequence" }
[keyspace]
scheme = "range"
shards = 8
key = ["id"]
[[streams]]
name = "insert"
op = "write"
rate = 1500
cost = "0.5ms"
`,
	}}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ds := cureRun(t, c.src)
			got := kinds(ds)
			if len(only(ds, c.kind)) == 0 {
				t.Fatalf("diagnosis %v, want %s", got, c.kind)
			}
			for _, k := range c.not {
				if slices.Contains(got, k) {
					t.Errorf("diagnosis %v holds %s", got, k)
				}
			}
			msg := only(ds, c.kind)[0].Message
			for _, w := range c.says {
				if !strings.Contains(msg, w) {
					t.Errorf("%s says %q, without %q", c.kind, msg, w)
				}
			}
		})
	}
}
