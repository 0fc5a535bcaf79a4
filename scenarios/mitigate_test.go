package scenarios_test

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/detect"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/cache"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/mechanisms/replicas"
	"github.com/shardsim/shardsim/mechanisms/split"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/workload"
)

// A scenario without the mitigation sections builds a model without mitigations: every
// new field nil or zero, no followers, KeyFields the key's fields.
// cacheOf is m's cache setting (mechanisms/cache), nil when it has none.
func cacheOf(m *sim.Model) *cache.Cache {
	for _, x := range m.Mechanisms {
		if c, ok := x.(cache.Cache); ok {
			return &c
		}
	}
	return nil
}

// actionsOf is m's operator actions (mechanisms/operator), or nil.
func actionsOf(m *sim.Model) operator.Actions {
	for _, x := range m.Mechanisms {
		if a, ok := x.(operator.Actions); ok {
			return a
		}
	}
	return nil
}

// replicasOf is m's followers (mechanisms/replicas), or nil.
func replicasOf(m *sim.Model) *replicas.Replicas {
	for _, x := range m.Mechanisms {
		if r, ok := x.(replicas.Replicas); ok {
			return &r
		}
	}
	return nil
}

// limitsOf is m's partition limits (mechanisms/limits), or nil.
func limitsOf(m *sim.Model) *scenario.PartitionLimits {
	for _, x := range m.Mechanisms {
		if l, ok := x.(limits.Limits); ok {
			return &l.Settings
		}
	}
	return nil
}

// splitOf is m's automatic splits (mechanisms/split), or nil.
func splitOf(m *sim.Model) *split.Split {
	for _, x := range m.Mechanisms {
		if s, ok := x.(split.Split); ok {
			return &s
		}
	}
	return nil
}

// cached reports whether stream i's reads go through m's cache.
func cached(m *sim.Model, i int) bool {
	c := cacheOf(m)
	return c != nil && slices.Contains(c.Streams, i)
}

func TestNoMitigations(t *testing.T) {
	sc := load(t, shopBase, scenarios.Options{})
	v := sc.Variants[0]
	m := v.Model()
	if cacheOf(m) != nil || replicasOf(m) != nil || limitsOf(m) != nil || splitOf(m) != nil || actionsOf(m) != nil {
		t.Errorf("mitigations set: cache %v replicas %v limits %v split %v actions %v",
			cacheOf(m), replicasOf(m), limitsOf(m), splitOf(m), actionsOf(m))
	}
	if m.Detect != (detect.Config{}) {
		t.Errorf("Detect = %+v, want zero (the engine's defaults)", m.Detect)
	}
	if v.MaxShards != v.Shards {
		t.Errorf("MaxShards %d, want Shards %d", v.MaxShards, v.Shards)
	}
	for i, st := range m.Streams {
		if !reflect.DeepEqual(st.Client, sim.Client{}) || cached(m, i) {
			t.Errorf("stream %q: client %+v, cache %v", st.Name, st.Client, cached(m, i))
		}
		if !slices.Equal(st.KeyFields, []int{1}) { // fields: row_id, user_id
			t.Errorf("stream %q: key fields %v, want [1]", st.Name, st.KeyFields)
		}
	}
	if got := v.Detect(); got != (detect.Config{TopK: 10, SampleEvery: 64, MaxKeys: 4096, OutlierFactor: 10, OutlierMinSamples: 50}) {
		t.Errorf("Detect() = %+v", got)
	}
	if ex := v.Explain(); len(ex.Notes) != 0 {
		t.Errorf("explain notes %q, want none", ex.Notes)
	}
}

// mitigated is shopBase (6 nodes of 4 cores, 12 shards, streams put and get) with a scan
// stream and the sections under test appended.
const mitigated = shopBase + `[[streams]]
name = "all"
op = "scan"
rate = 1
cost = "1ms"
`

func TestMitigationDefaults(t *testing.T) {
	src := mitigated + `
[cache]
capacity = 1000
ttl = "30s"
[keyspace.limits]
[keyspace.split]
rows = 500
[keyspace.copies]
count = 4
top = 3
[detect]
`
	sc := load(t, src, scenarios.Options{})
	v := sc.Variants[0]
	m := v.Model()
	if want := (cache.Settings{Capacity: 1000, TTL: 30 * sim.Second, HitCost: 100 * sim.Microsecond}); cacheOf(m) == nil || cacheOf(m).Settings != want {
		t.Errorf("cache %+v, want %+v", cacheOf(m), want)
	}
	if want := (scenario.PartitionLimits{WriteUnits: 1000, ReadUnits: 3000, Burst: 300 * sim.Second}); limitsOf(m) == nil || *limitsOf(m) != want {
		t.Errorf("limits %+v, want %+v", limitsOf(m), want)
	}
	sp := splitOf(m)
	if want := (scenario.SplitPolicy{Rows: 500, Move: 30 * sim.Second}); sp == nil || sp.Policy != want {
		t.Fatalf("split %+v, want %+v", sp, want)
	}
	if sp.Splitter == nil || sp.Splitter.Max() != 48 || sp.Splitter.Live() != 12 {
		t.Fatalf("splitter %v", sp.Splitter)
	}
	if v.MaxShards != 48 || v.Shards != 12 || len(m.ShardNode) != 12 {
		t.Errorf("shards %d, max %d, placement of %d", v.Shards, v.MaxShards, len(m.ShardNode))
	}
	if m.Detect != (detect.Config{TopK: 10, SampleEvery: 64, MaxKeys: 4096, OutlierFactor: 10, OutlierMinSamples: 50}) {
		t.Errorf("detect %+v", m.Detect)
	}
	useCache := map[string]bool{"put": false, "get": true, "all": false}
	for i, st := range m.Streams {
		if cached(m, i) != useCache[st.Name] {
			t.Errorf("stream %q: cached %v", st.Name, cached(m, i))
		}
		if st.Op == sim.Scan && st.KeyFields != nil {
			t.Errorf("scan %q has key fields %v", st.Name, st.KeyFields)
		}
	}
	// The three most popular user ids of the Zipf field are copied, four times each.
	z := workload.NewZipf(1000, 0.99, true)
	r := rand.New(rand.NewPCG(1, 2))
	fields := []uint64{0, z.ID(0)}
	visits := m.Streams[0].Planner.Plan(nil, r, fields, 0) // a write of a copied row
	parts := 0
	for _, vis := range visits {
		parts += int(vis.Partitions)
	}
	if parts != 4 {
		t.Errorf("a write of the hottest user visits %v: %d partitions, want 4 copies", visits, parts)
	}
	fields[1] = z.ID(3)
	if visits = m.Streams[0].Planner.Plan(nil, r, fields, 0); len(visits) != 1 || visits[0].Partitions != 1 {
		t.Errorf("a write of the 4th user visits %v, want one partition", visits)
	}
	ex := v.Explain()
	if len(ex.Notes) != 4 {
		t.Errorf("explain notes %q, want four (cache, split, limits, copies)", ex.Notes)
	}
}

func TestMitigationExplicit(t *testing.T) {
	src := mitigated + `
[cache]
capacity = 5000
ttl = "1m"
jitter = 0.2
hit_cost = "50us"
single_flight = true
stale_while_revalidate = "5s"
enabled = false
streams = ["get"]
[keyspace.limits]
write_units = 100
read_units = 200.5
table_write_units = 600
table_read_units = 1200
burst = "10s"
adaptive = true
split_for_heat = true
[keyspace.split]
load = 0.75
move = "1m"
max_shards = 20
[keyspace.copies]
count = 2
keys = [7, 8]
field = "user_id"
[detect]
top_k = 5
sample_every = 1
max_keys = 1000
outlier_factor = 3.5
outlier_min_samples = 20
`
	src = strings.Replace(src, "[cluster]\n", "[cluster]\nreplicas = 2\nread_from = \"any\"\napply_cost = \"0.2ms\"\n", 1)
	src = strings.Replace(src, `cost = "0.5ms"`, `cost = "0.5ms"
timeout = "50ms"
retries = 3
backoff = "5ms"
backoff_max = "80ms"
limit = { rate = 25, burst = 5, overflow = "queue" }`, 1)
	sc := load(t, src, scenarios.Options{})
	v := sc.Variants[0]
	m := v.Model()
	if r := replicasOf(m); r == nil || r.Followers != 2 || !r.ReadAny {
		t.Errorf("replicas %+v: want 2 followers, reads from any copy", r)
	}
	want := cache.Settings{Capacity: 5000, TTL: sim.Minute, Jitter: 0.2, HitCost: 50 * sim.Microsecond, SingleFlight: true, StaleWhileRevalidate: 5 * sim.Second, Off: true}
	if cacheOf(m) == nil || cacheOf(m).Settings != want {
		t.Errorf("cache %+v, want %+v", cacheOf(m), want)
	}
	wantL := scenario.PartitionLimits{WriteUnits: 100, ReadUnits: 200.5, TableWriteUnits: 600, TableReadUnits: 1200, Burst: 10 * sim.Second, Adaptive: true, SplitForHeat: true}
	if limitsOf(m) == nil || *limitsOf(m) != wantL {
		t.Errorf("limits %+v, want %+v", limitsOf(m), wantL)
	}
	sp := splitOf(m)
	if want := (scenario.SplitPolicy{Load: 0.75, Move: sim.Minute, Throttled: true}); sp == nil || sp.Policy != want {
		t.Fatalf("split %+v, want %+v", sp, want)
	}
	if sp.Splitter == nil || sp.Splitter.Max() != 20 {
		t.Errorf("splitter %v, want one bounded at max_shards = 20", sp.Splitter)
	}
	if m.Detect != (detect.Config{TopK: 5, SampleEvery: 1, MaxKeys: 1000, OutlierFactor: 3.5, OutlierMinSamples: 20}) {
		t.Errorf("detect %+v", m.Detect)
	}
	if got := v.Detect(); got != (detect.Config{TopK: 5, SampleEvery: 1, MaxKeys: 1000, OutlierFactor: 3.5, OutlierMinSamples: 20}) {
		t.Errorf("Detect() = %+v", got)
	}
	get := m.Streams[1]
	wantC := sim.Client{Timeout: 50 * sim.Millisecond, Retries: 3, Backoff: 5 * sim.Millisecond, BackoffMax: 80 * sim.Millisecond, Limit: &sim.Limit{Rate: 25, Burst: 5, Queue: true}}
	if !reflect.DeepEqual(get.Client, wantC) || !cached(m, 1) {
		t.Errorf("get: client %+v (limit %+v), cache %v", get.Client, get.Client.Limit, cached(m, 1))
	}
	if r := replicasOf(m); r == nil || len(r.ApplyCost) != len(m.Streams) {
		t.Errorf("followers %+v: want one apply cost a stream", r)
	} else {
		for i, st := range m.Streams {
			if r.ApplyCost[i] != 200*sim.Microsecond {
				t.Errorf("stream %q: apply cost %v, want 0.2ms", st.Name, r.ApplyCost[i])
			}
		}
	}
	// Two models own their pointers.
	m2 := v.Model()
	if splitOf(m2).Splitter == sp.Splitter || m2.Streams[1].Client.Limit == get.Client.Limit {
		t.Error("two models share a mitigation")
	}
}

// Every planner of a splitting variant routes through the model's one splitter, and a
// scatter visits the shards that exist when it is planned.
func TestSplitterShared(t *testing.T) {
	src := mitigated + "[keyspace.split]\nrows = 100\nmax_shards = 13\n"
	src = strings.Replace(src, "[keyspace]\n", "[keyspace]\nscheme = \"range\"\n", 1)
	m := load(t, src, scenarios.Options{}).Variants[0].Model()
	r := rand.New(rand.NewPCG(1, 2))
	scan := m.Streams[2].Planner
	if n := len(scan.Plan(nil, r, make([]uint64, 2), 0)); n != 12 {
		t.Fatalf("scan visits %d shards before a split, want 12", n)
	}
	// Split the shard user 500 lives on, at the median of some of its keys.
	var keys []keyspace.Key
	for u := uint64(0); u < 1000; u++ {
		keys = append(keys, keyspace.Key{N: 1, P: [keyspace.MaxParts]uint64{u}})
	}
	sp := splitOf(m).Splitter
	shard := sp.Shard(&keys[500])
	var mine []keyspace.Key
	for _, k := range keys {
		if sp.Shard(&k) == shard {
			mine = append(mine, k)
		}
	}
	ns, ok := sp.Split(shard, mine)
	if !ok || ns != 12 {
		t.Fatalf("split of shard %d: %d %v", shard, ns, ok)
	}
	if n := len(scan.Plan(nil, r, make([]uint64, 2), 0)); n != 13 {
		t.Errorf("scan visits %d shards after a split, want 13", n)
	}
	// The write and the read planner see the new shard too.
	hi := mine[len(mine)-1].P[0]
	for _, st := range m.Streams[:2] {
		v := st.Planner.Plan(nil, r, []uint64{0, hi}, 0)
		if len(v) != 1 || v[0].Shard != 12 {
			t.Errorf("stream %q: user %d goes to %v, want shard 12", st.Name, hi, v)
		}
	}
}

func TestActions(t *testing.T) {
	src := mitigated + `
[cache]
capacity = 10
ttl = "1s"
enabled = false
[[actions]]
at = "06:00:05"
stream = "put"
limit = { rate = 9000, overflow = "queue" }
[[actions]]
at = "2s"
node = 3
cores = 16
note = "bigger box"
[[actions]]
at = "06:00:02"
node = 3
cores = 32
[[actions]]
at = "1s"
cache = true
[[actions]]
at = "9s"
stream = "put"
limit = "none"
[[actions]]
at = "0s"
node = 0
queue_limit = 1500
[[variants]]
name = "as written"
[[variants]]
name = "one action"
actions = [ { at = "3s", cache = false } ]
`
	sc := load(t, src, scenarios.Options{})
	m := sc.Variants[0].Model()
	var texts []string
	var ats []sim.Time
	for _, a := range actionsOf(m) {
		texts = append(texts, a.Text)
		ats = append(ats, a.At)
	}
	want := []string{
		"node 0: queue limit 100 → 1,500",
		"cache on",
		"node 3: 4 → 16 cores (bigger box)",
		"node 3: 16 → 32 cores",
		"put: limit 9,000/s, overflow queued",
		"put: limit lifted",
	}
	if !slices.Equal(texts, want) {
		t.Errorf("actions\n%q\nwant\n%q", texts, want)
	}
	if !slices.Equal(ats, []sim.Time{0, sim.Second, 2 * sim.Second, 2 * sim.Second, 5 * sim.Second, 9 * sim.Second}) {
		t.Errorf("times %v", ats)
	}
	a := actionsOf(m)[4]
	if a.Change != operator.ClientLimit || !a.Client || a.Stream != 0 || a.Limit == nil || *a.Limit != (sim.Limit{Rate: 9000, Burst: 1, Queue: true}) {
		t.Errorf("limit action %+v", a)
	}
	if a := actionsOf(m)[2]; a.Change != operator.Cores || a.Client || a.Node != 3 || a.Cores != 16 {
		t.Errorf("cores action %+v", a)
	}
	if a := actionsOf(m)[0]; a.Change != operator.QueueLimit || a.Node != 0 || a.QueueLimit != 1500 {
		t.Errorf("queue action %+v", a)
	}
	if a := actionsOf(m)[1]; a.Change != operator.Noted || !a.Client || !slices.Equal(cacheOf(m).Switches, []cache.Switch{{At: a.At, On: true}}) {
		t.Errorf("cache action %+v", a)
	}
	if a := actionsOf(m)[5]; a.Change != operator.ClientLimit || a.Limit != nil {
		t.Errorf("lifting action %+v", a)
	}
	// A variant's actions replace the base's list.
	m1 := sc.Variants[1].Model()
	if len(actionsOf(m1)) != 1 || actionsOf(m1)[0].Text != "cache off" || actionsOf(m1)[0].At != 3*sim.Second {
		t.Errorf("variant actions %+v", actionsOf(m1))
	}
}

func TestCopiesTop(t *testing.T) {
	tmpl := `name = "top"
duration = "1h"
[cluster]
nodes = 2
[table.fields]
k = %s
[keyspace]
shards = 4
key = ["k"]
[keyspace.copies]
count = 3
top = %d
[[streams]]
name = "w"
op = "write"
rate = 1
cost = "1ms"
`
	tests := []struct {
		gen  string
		top  int
		hot  []uint64 // copied
		cold []uint64 // not copied
		err  string
	}{
		{gen: `{ gen = "zipf", n = 50, scramble = false }`, top: 2, hot: []uint64{0, 1}, cold: []uint64{2, 49}},
		{gen: `{ gen = "categorical", values = ["a", "b", "c"], weights = [1, 5, 5] }`, top: 2, hot: []uint64{1, 2}, cold: []uint64{0}},
		{gen: `{ gen = "categorical", count = 3 }`, top: 1, hot: []uint64{0}, cold: []uint64{1, 2}},
		{gen: `{ gen = "hotspot", n = 100, hot_fraction = 0.1 }`, top: 10, hot: []uint64{0, 9}, cold: []uint64{10}},
		{gen: `{ gen = "hotspot", n = 100, hot_fraction = 0.1 }`, top: 11, err: "only 10 hot ids"},
		{gen: `{ gen = "zipf", n = 5 }`, top: 6, err: "only 5 ids"},
		{gen: `{ gen = "uniform", n = 5 }`, top: 1, err: `gen = "uniform"`},
	}
	for _, tc := range tests {
		t.Run(tc.gen, func(t *testing.T) {
			src := fmt.Sprintf(tmpl, tc.gen, tc.top)
			if tc.err != "" {
				es := problems(t, loadErr(t, src, scenarios.Options{}))
				if len(es) != 1 || es[0].Key != "keyspace.copies.top" || !strings.Contains(es[0].Msg, tc.err) {
					t.Errorf("got %v, want keyspace.copies.top: ...%s", es, tc.err)
				}
				return
			}
			m := load(t, src, scenarios.Options{}).Variants[0].Model()
			r := rand.New(rand.NewPCG(1, 2))
			for _, id := range tc.hot {
				if v := m.Streams[0].Planner.Plan(nil, r, []uint64{id}, 0); partitions(v) != 3 {
					t.Errorf("value %d: %v, want 3 copies", id, v)
				}
			}
			for _, id := range tc.cold {
				if v := m.Streams[0].Planner.Plan(nil, r, []uint64{id}, 0); partitions(v) != 1 {
					t.Errorf("value %d: %v, want 1 partition", id, v)
				}
			}
		})
	}
}

func partitions(vs []keyspace.Visit) int {
	n := 0
	for _, v := range vs {
		n += int(v.Partitions)
	}
	return n
}

// The time series of a splitting variant are sized for max_shards.
func TestSplitMemory(t *testing.T) {
	src := mitigated + "[keyspace.split]\nrows = 1\nmax_shards = 100000\n"
	src = strings.Replace(src, `duration = "10s"`, `duration = "10s"`+"\nwindow = \"5ms\"", 1)
	es := problems(t, loadErr(t, src, scenarios.Options{}))
	if len(es) != 1 || es[0].Key != "window" || !strings.Contains(es[0].Msg, "max_shards") {
		t.Errorf("got %v, want a window problem naming max_shards", es)
	}
	// The same without splitting fits.
	load(t, strings.Replace(src, "rows = 1", "rows = 0", 1), scenarios.Options{})
}

func TestExplainReplicas(t *testing.T) {
	src := `name = "rep"
duration = "10s"
[cluster]
nodes = 2
replicas = 1
apply_cost = "0.5ms"
[table.fields]
id = { gen = "uniform", n = 1000 }
[keyspace]
shards = 1
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 100
cost = "1ms"
[[streams]]
name = "r"
op = "read"
rate = 200
cost = "1ms"
[[variants]]
name = "leader"
[[variants]]
name = "any"
cluster = { read_from = "any" }
`
	sc := load(t, src, scenarios.Options{})
	near := func(a, b float64) bool { return a > b-1e-9 && a < b+1e-9 }
	// Leader reads: node 0 serves 100 x 1ms + 200 x 1ms = 0.3 s/s; node 1 applies 100 x 0.5ms.
	ex := sc.Variants[0].Explain()
	if !near(ex.Nodes[0].Mean, 0.3) || !near(ex.Nodes[1].Mean, 0.05) || !near(ex.Shards[0].Mean, 0.3) {
		t.Errorf("leader: nodes %+v, shard %+v", ex.Nodes, ex.Shards)
	}
	// Reads from any copy: half the reads each.
	ex = sc.Variants[1].Explain()
	if !near(ex.Nodes[0].Mean, 0.2) || !near(ex.Nodes[1].Mean, 0.15) {
		t.Errorf("any: nodes %+v", ex.Nodes)
	}
	if len(ex.Notes) != 1 || !strings.Contains(ex.Notes[0], "follower") {
		t.Errorf("notes %q", ex.Notes)
	}
}
