package compile_test

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// loadKeys loads a scenario from its source, failing the test on an error.
func loadKeys(t *testing.T, src string) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadBytes("keys.toml", []byte(src), scenarios.Options{})
	if err != nil {
		t.Fatalf("LoadBytes: %v\nsource:\n%s", err, src)
	}
	return sc
}

func TestFormatKeyAndPartition(t *testing.T) {
	src := `name = "fmt"
start = "06:00"
duration = "1h"
[cluster]
nodes = 2
[table.fields]
region = { gen = "categorical", values = ["west", "east"] }
ts = { gen = "time" }
sf = { gen = "snowflake" }
user_id = { gen = "zipf", n = 100 }
[keyspace]
shards = 4
salt = 4
key = ["region", "hour(ts)", "hash(user_id, 8)"]
[keyspace.copies]
count = 2
field = "region"
keys = ["east"]
[[streams]]
name = "w"
op = "write"
rate = 1
cost = "1ms"
[[streams]]
name = "s"
op = "scan"
rate = 1
cost = "1ms"
[[variants]]
name = "salted"
[[variants]]
name = "snowflake"
keyspace = { salt = 0, key = ["sf", "day(ts)"], copies = { count = 2, keys = [5], field = "sf" } }
`
	sc := loadKeys(t, src)
	m := sc.Variants[0].Model()
	k := compile.KeysOf(sc.Variants[0].Spec)
	if !slices.Equal(m.Streams[0].KeyFields, []int{0, 2, 3}) { // fields: region, sf, ts, user_id
		t.Fatalf("key fields %v", m.Streams[0].KeyFields)
	}
	ts := workload.NewTime().Next(nil, int64(2*sim.Hour+15*sim.Minute+250*sim.Millisecond))
	if got, want := k.FormatKey(0, []uint64{1, ts, 42}), "region=east, ts=08:15:00.250, user_id=42"; got != want {
		t.Errorf("FormatKey = %q, want %q", got, want)
	}
	if got := k.FormatKey(1, []uint64{1}); got != "" {
		t.Errorf("FormatKey of a scan = %q, want empty", got)
	}
	d := keyspace.Design{Clock: int64(6 * sim.Hour)}
	hour := d.BucketOf(int64(2*sim.Hour+10*sim.Minute), int64(sim.Hour))
	if got, want := k.FormatPartition([]uint64{3, 0, hour, 5}), "(salt=3, region=west, hour(ts)=08:00, hash(user_id, 8)=5)"; got != want {
		t.Errorf("FormatPartition = %q, want %q", got, want)
	}
	if got, want := k.FormatPartition([]uint64{3, 1, hour, 5, 1}), "(salt=3, region=east, hour(ts)=08:00, hash(user_id, 8)=5, copy=1)"; got != want {
		t.Errorf("FormatPartition of a copy = %q, want %q", got, want)
	}
	yesterday := d.BucketOf(-int64(7*sim.Hour), int64(sim.Hour))
	if got, want := k.FormatPartition([]uint64{0, 0, yesterday, 0}), "(salt=0, region=west, hour(ts)=d-1 23:00, hash(user_id, 8)=0)"; got != want {
		t.Errorf("FormatPartition = %q, want %q", got, want)
	}
	k = compile.KeysOf(sc.Variants[1].Spec)
	sf := workload.NewSnowflake()
	id := sf.Next(nil, int64(30*sim.Second))
	id2 := sf.Next(nil, int64(30*sim.Second))
	day := d.BucketOf(0, int64(24*sim.Hour))
	if got, want := k.FormatPartition([]uint64{id2, day}), "(sf=06:00:30#1, day(ts)=day 0)"; got != want {
		t.Errorf("FormatPartition = %q, want %q", got, want)
	}
	if got, want := k.FormatKey(0, []uint64{id, ts}), "sf=06:00:30, ts=08:15:00.250"; got != want {
		t.Errorf("FormatKey = %q, want %q", got, want)
	}
}

// TestStreamPartitionNames: a partition a stream wrote is named by the stream's own field
// generators. A counter stream that draws counter_id from its one categorical value
// "page_views" writes partition (counter_id=page_views), though the table's generator for
// counter_id is a uniform number (which named it counter_id=0).
func TestStreamPartitionNames(t *testing.T) {
	sc := loadKeys(t, `name = "counters"
duration = "10s"
[cluster]
nodes = 2
[table.fields]
counter_id = { gen = "uniform", n = 100000 }
[keyspace]
shards = 4
key = ["counter_id"]
[[streams]]
name = "other"
op = "write"
rate = 10
cost = "1ms"
[[streams]]
name = "increment"
op = "write"
rate = 10
cost = "1ms"
fields = { counter_id = { gen = "categorical", values = ["page_views"] } }
`)
	k := compile.KeysOf(sc.Variants[0].Spec)
	for _, c := range []struct {
		stream int
		want   string
	}{{1, "(counter_id=page_views)"}, {0, "(counter_id=0)"}, {-1, "(counter_id=0)"}} {
		if got := k.FormatStreamPartition(c.stream, []uint64{0}); got != c.want {
			t.Errorf("stream %d: %q, want %q", c.stream, got, c.want)
		}
	}
}
