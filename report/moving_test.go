package report

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/trace"
)

// TestHeatLineLeadsWithMovingHotSpot: a run whose busiest window had one shard at 100%
// while over the run the hottest shard was at 8% (a hot spot that moved from shard to
// shard, each window's on another) is not summed up as "skew 1.33x": the busiest window
// leads the heat line and the spread line, and the line says the hot spot moved; one that
// came and went on the run's hottest shard did not last. A hot spot that stays (90% over
// the run, 100% in the busiest window) keeps the run first.
func TestHeatLineLeadsWithMovingHotSpot(t *testing.T) {
	ratio := 1.33
	v := &VariantSummary{Shards: []ShardSummary{{ID: 3, Node: 3}, {ID: 7, Node: 7}}, Skew: Skew{
		HottestShard: 3, HottestLoad: 0.08, MedianLoad: 0.06, MaxOverMedian: &ratio,
		PeakWindow: "00:00:05", PeakHottestShard: 7, PeakHottestLoad: 1, PeakMedianLoad: 0,
		ShardSpread: LoadSpread{Gini: 0.05}, PeakShardSpread: LoadSpread{Gini: 0.94},
	}}
	heat, spread := heatLine(v), spreadLine(v, false)
	if !strings.HasPrefix(heat, "busiest window 00:00:05: shard 7 at 100.0%, median 0.0%; the hot spot moved from shard to shard") ||
		!strings.HasSuffix(heat, "hottest shard 3 (node 3): 8.0% load, median shard 6.0%, skew 1.33x") {
		t.Errorf("heat line of a moving hot spot: %s", heat)
	}
	if !strings.HasPrefix(spread, "spread in the busiest window: shards p95/p50 n/a (median idle), Gini 0.94; spread over the run:") {
		t.Errorf("spread line of a moving hot spot: %s", spread)
	}
	// A hot spot that came and went on the run's hottest shard did not move: the line says
	// it did not last.
	v.Skew.PeakHottestShard = 3
	if heat := heatLine(v); !strings.HasPrefix(heat, "busiest window 00:00:05: shard 3 at 100.0%, median 0.0%; the hot spot did not last") ||
		strings.Contains(heat, "moved") {
		t.Errorf("heat line of a hot spot that came and went on one shard: %s", heat)
	}
	v.Skew.PeakHottestShard = 7
	v.Skew.HottestLoad = 0.9
	if heat := heatLine(v); !strings.HasPrefix(heat, "hottest shard 3 (node 3): 90.0% load") {
		t.Errorf("heat line of a hot spot that stays: %s", heat)
	}
	if spread := spreadLine(v, false); !strings.HasPrefix(spread, "spread over the run:") {
		t.Errorf("spread line of a hot spot that stays: %s", spread)
	}
}

// TestDiagnoseReplayedMonotonicKey replays a generated log (seed 9, 12,000 lines at
// 3,000/s for 4 s; 30% reads of recent ids, Zipf s = 1.2 over the last 200) whose writes
// bring auto-increment ids, range-sharded on the id over 16 one-core nodes with a shard
// each (0.8 ms a request: 2.4 cores in all; seed 5, 1 s windows, every request sampled
// for detection). The splits come from the log's first records, as a cluster's from the
// keys it held when the log began, so the rows written after them pile onto the highest
// shard: the diagnosis is monotonic_key (a composite key or a salt), not
// hot_shard_many_keys (split it: a split of a key that grows with time only hands the new
// keys to the next shard). With 4 random salt buckets the rows pile onto the last range
// of each bucket, 4 shards, which every read of an id visits too (about 1.1 cores each,
// while the other shards idle): monotonic_key again, naming the buckets, not
// hot_shard_many_keys once per shard. On the old code (splits cut from the whole log, the
// heat moving from shard to shard) both read hot_shard_many_keys, as in the review.
func TestDiagnoseReplayedMonotonicKey(t *testing.T) {
	dir := t.TempDir()
	var log bytes.Buffer
	g := trace.Synthetic{Format: trace.CSV, Lines: 12_000, Rate: 3000, Keys: 200, S: 1.2, Reads: 0.3, Sequential: true, Seed: 9}
	if err := g.Write(&log); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "log.csv"), log.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	src := `name = "replayed"
seed = 5
duration = "4s"
window = "1s"
[cluster]
nodes = 16
cores = 1
[detect]
sample_every = 1
[table.fields]
ns   = { gen = "uuid" }
kind = { gen = "uuid" }
id   = { gen = "sequence" }
[keyspace]
scheme = "range"
shards = 16
key = ["id"]
[[streams]]
name = "log"
cost = "0.8ms"
trace = { path = "log.csv", key_fields = { delimiter = ":", names = ["ns", "kind", "id"] } }
[[variants]]
name = "salt 1"
[[variants]]
name = "salt 4"
keyspace = { salt = 4 }
`
	sc, err := scenarios.LoadBytes(filepath.Join(dir, "cure.toml"), []byte(src), scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []string{"shard 15, the highest of the range,", "4 shards, one per salt bucket,"} {
		v := sc.Variants[i]
		run := Run{Variant: describeVariant(v), Result: sim.Run(v.Model())}
		ds := Summarize(describeScenario(sc), []Run{run}).Variants[0].Diagnosis
		got := kinds(ds)
		t.Logf("%s: diagnosis %v", v.Name, got)
		if len(only(ds, "monotonic_key")) == 0 || slices.Contains(got, "hot_shard_many_keys") {
			t.Errorf("%s: diagnosis %v, want monotonic_key and no hot_shard_many_keys", v.Name, got)
			continue
		}
		if msg := only(ds, "monotonic_key")[0].Message; !strings.Contains(msg, "log.write") || !strings.Contains(msg, want) {
			t.Errorf("%s: monotonic_key without %q: %s", v.Name, want, msg)
		}
	}
}
