package scenarios_test

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/compile"
	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
	"github.com/shardsim/shardsim/units"
	"github.com/shardsim/shardsim/workload"
)

// ---- helpers ----

func load(t *testing.T, src string, opts scenarios.Options) *scenarios.Scenario {
	t.Helper()
	sc, err := scenarios.LoadBytes("test.toml", []byte(src), opts)
	if err != nil {
		t.Fatalf("LoadBytes: %v\nsource:\n%s", err, src)
	}
	return sc
}

func loadErr(t *testing.T, src string, opts scenarios.Options) error {
	t.Helper()
	sc, err := scenarios.LoadBytes("test.toml", []byte(src), opts)
	if err == nil {
		t.Fatalf("LoadBytes accepted the scenario (%d variants); want an error\nsource:\n%s", len(sc.Variants), src)
	}
	return err
}

// problems returns the located problems of a LoadBytes error.
func problems(t *testing.T, err error) tomlx.Errors {
	t.Helper()
	var es tomlx.Errors
	if !errors.As(err, &es) {
		t.Fatalf("error %q (%T) is not a tomlx.Errors", err, err)
	}
	return es
}

// lineOf returns the 1-based line of the first line of src containing marker.
func lineOf(t *testing.T, src, marker string) int {
	t.Helper()
	for i, l := range strings.Split(src, "\n") {
		if strings.Contains(l, marker) {
			return i + 1
		}
	}
	t.Fatalf("marker %q not in source", marker)
	return 0
}

func variant(t *testing.T, sc *scenarios.Scenario, name string) *scenarios.Variant {
	t.Helper()
	for _, v := range sc.Variants {
		if v.Name == name {
			return v
		}
	}
	t.Fatalf("no variant %q", name)
	return nil
}

func variantNames(sc *scenarios.Scenario) []string {
	var out []string
	for _, v := range sc.Variants {
		out = append(out, v.Name)
	}
	return out
}

// countArrivals counts the arrivals of a fresh arrival process in [0, d).
func countArrivals(a workload.Arrivals, d sim.Time) int {
	r := rand.New(rand.NewPCG(1, 2))
	n := 0
	for t := a.Next(r, 0); t < int64(d) && n < 10_000_000; t = a.Next(r, t) {
		n++
	}
	return n
}

func roundRobin(shards, nodes int) []int {
	out := make([]int, shards)
	for i := range out {
		out[i] = i % nodes
	}
	return out
}

// shopBase is a scenario with variants-friendly defaults: every value a variant may
// override is set to something other than its default.
const shopBase = `name = "shop"
description = "a shop"
seed = 5
start = "06:00"
duration = "10s"
[cluster]
nodes = 6
cores = 4
queue_limit = 100
network = "1ms"
[table.fields]
user_id = { gen = "zipf", n = 1000 }
row_id = { gen = "uuid" }
[keyspace]
shards = 12
key = ["user_id"]
[[streams]]
name = "put"
op = "write"
rate = 20
arrival = "uniform"
cost = "1ms"
[[streams]]
name = "get"
op = "read"
rate = 40
arrival = "uniform"
cost = "0.5ms"
`

// ---- defaults ----

func TestDefaults(t *testing.T) {
	const minimal = `name = "minimal"
duration = "1h"
[cluster]
nodes = 3
[table.fields]
id = { gen = "uuid" }
[keyspace]
shards = 5
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 1
cost = "1ms"
`
	sc := load(t, minimal, scenarios.Options{})
	if len(sc.Variants) != 1 {
		t.Fatalf("%d variants, want 1", len(sc.Variants))
	}
	v := sc.Variants[0]
	m := v.Model()
	checks := []struct {
		what      string
		got, want any
	}{
		{"Source", sc.Source, "test.toml"},
		{"Name", sc.Name, "minimal"},
		{"Description", sc.Description, ""},
		{"Seed", sc.Seed, uint64(1)},
		{"Start", sc.Start, sim.Time(0)},
		{"start label", units.Clock(sc.Start, 0, units.TimeOfDay), "00:00"},
		{"Duration", sc.Duration, sim.Hour},
		{"Warmup", sc.Warmup, sim.Time(0)},
		{"Window", sc.Window, sim.Minute},
		{"variant name", v.Name, "base"},
		{"variant description", v.Description, ""},
		{"variant nodes", v.Nodes, 3},
		{"variant shards", v.Shards, 5},
		{"variant streams", fmt.Sprint(v.Streams), fmt.Sprint([]scenarios.StreamInfo{{Name: "w", Op: sim.Write, SLO: []sim.Time{200 * sim.Millisecond, 500 * sim.Millisecond, 1500 * sim.Millisecond}}})},
		{"key description", compile.KeyDescription(v.Spec), "hash (modulo) of (id) over 5 shards on 3 nodes"},
		{"model seed", m.Seed, uint64(1)},
		{"model duration", m.Duration, sim.Hour},
		{"model warmup", m.Warmup, sim.Time(0)},
		{"model window", m.Window, sim.Minute},
		{"model windows", m.Windows(), 60},
		{"model network", m.Network, sim.Time(0)},
		{"model nodes", fmt.Sprint(m.Nodes), fmt.Sprint([]sim.Node{{Cores: 1}, {Cores: 1}, {Cores: 1}})},
		{"model placement", fmt.Sprint(m.ShardNode), fmt.Sprint(roundRobin(5, 3))},
		{"model streams", len(m.Streams), 1},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s = %v, want %v", c.what, c.got, c.want)
		}
	}
	st := m.Streams[0]
	if st.Name != "w" || st.Op != sim.Write || st.Cost != sim.Millisecond {
		t.Errorf("stream = %q %v cost %v", st.Name, st.Op, st.Cost)
	}
	if st.Service != (sim.Service{Kind: sim.Exponential, CV: 0.5}) {
		t.Errorf("service = %+v, want exponential (CV 0.5 unused)", st.Service)
	}
	if _, ok := st.Arrivals.(*workload.Poisson); !ok {
		t.Errorf("arrivals %T, want Poisson", st.Arrivals)
	}
	if _, ok := st.Planner.(*keyspace.PointPlanner); !ok {
		t.Errorf("planner %T, want a PointPlanner", st.Planner)
	}
	if st.Age != nil {
		t.Errorf("age %v, want nil (0)", st.Age)
	}
	if len(st.Fields) != 1 || st.Fields[0] == nil {
		t.Errorf("fields %v, want the one key field drawn", st.Fields)
	}
}

// ---- variants ----

func TestVariantsDeepOverride(t *testing.T) {
	src := shopBase + `
[[variants]]
name = "base"
description = "as written"

[[variants]]
name = "12 nodes"
description = "twice the nodes"
cluster = { nodes = 12 }

[[variants]]
name = "row key"
keyspace = { key = ["row_id"] }

[[variants]]
name = "one stream"
streams = [ { name = "scan_all", op = "scan", rate = 1, cost = "2ms" } ]

[[variants]]
name = "ring"
[variants.keyspace]
hash = "ring"
vnodes = 4
`
	sc := load(t, src, scenarios.Options{})
	if got, want := variantNames(sc), []string{"base", "12 nodes", "row key", "one stream", "ring"}; !slices.Equal(got, want) {
		t.Fatalf("variants %q, want %q", got, want)
	}
	if sc.Name != "shop" || sc.Description != "a shop" || sc.Seed != 5 || sc.Start != 6*sim.Hour || sc.Duration != 10*sim.Second {
		t.Errorf("scenario-wide settings %q %q %d %v %v", sc.Name, sc.Description, sc.Seed, sc.Start, sc.Duration)
	}
	tests := []struct {
		variant     string
		description string
		nodes       int
		shards      int
		key         string
		streams     []string
		scanStream  bool
	}{
		{"base", "as written", 6, 12, "hash (modulo) of (user_id) over 12 shards on 6 nodes", []string{"put", "get"}, false},
		{"12 nodes", "twice the nodes", 12, 12, "hash (modulo) of (user_id) over 12 shards on 12 nodes", []string{"put", "get"}, false},
		{"row key", "", 6, 12, "hash (modulo) of (row_id) over 12 shards on 6 nodes", []string{"put", "get"}, false},
		{"one stream", "", 6, 12, "hash (modulo) of (user_id) over 12 shards on 6 nodes", []string{"scan_all"}, true},
		{"ring", "", 6, 12, "hash (ring) of (user_id) over 12 shards on 6 nodes", []string{"put", "get"}, false},
	}
	for _, tc := range tests {
		t.Run(tc.variant, func(t *testing.T) {
			v := variant(t, sc, tc.variant)
			m := v.Model()
			if v.Description != tc.description {
				t.Errorf("description %q, want %q", v.Description, tc.description)
			}
			if v.Nodes != tc.nodes || len(m.Nodes) != tc.nodes {
				t.Errorf("nodes %d (model %d), want %d", v.Nodes, len(m.Nodes), tc.nodes)
			}
			for i, n := range m.Nodes {
				// The base's cores and queue limit survive a variant that sets only nodes.
				if n != (sim.Node{Cores: 4, QueueLimit: 100}) {
					t.Errorf("node %d = %+v, want the base's 4 cores and queue limit 100", i, n)
				}
			}
			if m.Network != sim.Millisecond {
				t.Errorf("network %v, want the base's 1ms", m.Network)
			}
			if v.Shards != tc.shards || len(m.ShardNode) != tc.shards {
				t.Errorf("shards %d (model %d), want %d", v.Shards, len(m.ShardNode), tc.shards)
			}
			if !slices.Equal(m.ShardNode, roundRobin(tc.shards, tc.nodes)) {
				t.Errorf("placement %v", m.ShardNode)
			}
			if got := compile.KeyDescription(v.Spec); got != tc.key {
				t.Errorf("key %q, want %q", got, tc.key)
			}
			var names []string
			for i, s := range v.Streams {
				names = append(names, s.Name)
				if m.Streams[i].Name != s.Name || m.Streams[i].Op != s.Op {
					t.Errorf("model stream %d = %q %v, variant says %q %v", i, m.Streams[i].Name, m.Streams[i].Op, s.Name, s.Op)
				}
			}
			if !slices.Equal(names, tc.streams) {
				t.Errorf("streams %q, want %q", names, tc.streams)
			}
			if tc.scanStream {
				if v.Streams[0].Op != sim.Scan {
					t.Errorf("op %v, want scan", v.Streams[0].Op)
				}
				if _, ok := m.Streams[0].Planner.(*keyspace.ScatterPlanner); !ok {
					t.Errorf("planner %T, want a ScatterPlanner", m.Streams[0].Planner)
				}
			}
		})
	}
}

func TestVariantErrors(t *testing.T) {
	tests := []struct {
		name     string
		variants string
		key      string // the problem's key
		msg      string // in the problem's message
		marker   string // text on the line the problem points at
	}{
		{
			name:     "duplicate name",
			variants: "[[variants]]\nname = \"a\"\n[[variants]]\nname = \"b\"\n[[variants]]\nname = \"a\" # again\n",
			key:      "variants[2].name", msg: `duplicate variant name "a"`, marker: "# again",
		},
		{
			name:     "duration",
			variants: "[[variants]]\nname = \"longer\"\nduration = \"20s\" # here\n",
			key:      "variants[0].duration", msg: "scenario-wide", marker: "# here",
		},
		{
			name:     "seed",
			variants: "[[variants]]\nname = \"other seed\"\nseed = 9 # here\n",
			key:      "variants[0].seed", msg: "scenario-wide", marker: "# here",
		},
		{
			name:     "window",
			variants: "[[variants]]\nname = \"w\"\n\nwindow = \"1s\" # here\n",
			key:      "variants[0].window", msg: "scenario-wide", marker: "# here",
		},
		{
			name:     "no name",
			variants: "[[variants]]\nname = \"ok\"\n[[variants]] # here\ndescription = \"nameless\"\n",
			key:      "variants[1].name", msg: "required", marker: "# here",
		},
		{
			name:     "bad value",
			variants: "[[variants]]\nname = \"none\"\ncluster = { nodes = 0 } # here\n",
			key:      "variants[0].cluster.nodes", msg: "must be at least 1 (got 0)", marker: "# here",
		},
		{
			name:     "unknown key",
			variants: "[[variants]]\nname = \"x\"\nkeyspace = { shard = 3 } # here\n",
			key:      "variants[0].keyspace.shard", msg: `did you mean "shards"?`, marker: "# here",
		},
		{
			name:     "replaced streams checked",
			variants: "[[variants]]\nname = \"x\"\n[[variants.streams]]\nname = \"s\"\nop = \"scan\"\nrate = 1\ncost = \"0s\" # here\n",
			key:      "variants[0].streams[0].cost", msg: "must be positive", marker: "# here",
		},
		{
			name:     "base value made invalid by the variant",
			variants: "[[variants]]\nname = \"tiny\"\ncluster = { nodes = 2 }\n",
			key:      "cluster.node[0].id", msg: `no such node: ids run from 0 to 1 (got 5) (in variant "tiny")`, marker: "id = 5",
		},
		{
			name:     "not an array of tables",
			variants: "variants = [1, 2] # here\n",
			key:      "variants", msg: "must be an array of tables", marker: "# here",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := shopBase + "[[cluster.node]]\nid = 5\ncores = 8\n" + tc.variants
			if strings.HasPrefix(tc.variants, "variants =") {
				src = tc.variants + shopBase
			}
			err := loadErr(t, src, scenarios.Options{})
			es := problems(t, err)
			if len(es) != 1 {
				t.Fatalf("%d problems, want 1:\n%v", len(es), err)
			}
			e := es[0]
			if e.File != "test.toml" || e.Key != tc.key || !strings.Contains(e.Msg, tc.msg) {
				t.Errorf("problem %q; want key %q and message containing %q", e.Error(), tc.key, tc.msg)
			}
			if want := lineOf(t, src, tc.marker); e.Line != want {
				t.Errorf("problem %q at line %d, want %d", e.Error(), e.Line, want)
			}
		})
	}
}

// ---- Options ----

func TestOptionsSets(t *testing.T) {
	src := shopBase + `
[[variants]]
name = "base"
[[variants]]
name = "12 nodes"
cluster = { nodes = 12 }
[[variants]]
name = "row key"
keyspace = { key = ["row_id"] }
`
	type want struct {
		nodes   []int          // per variant
		arrived map[string]int // arrivals in the 10s run, per stream of the first variant
		key     string         // key description of the first variant
	}
	tests := []struct {
		name string
		sets []string
		want want
	}{
		{"none", nil, want{nodes: []int{6, 12, 6}, arrived: map[string]int{"put": 200, "get": 400}}},
		// The command line wins over a variant's own value (docs/scenario.md, "Overrides
		// from the command line").
		{"nodes everywhere, variants included", []string{"cluster.nodes=24"}, want{nodes: []int{24, 24, 24}}},
		{"spaces and underscores", []string{" cluster.nodes = 1_0 "}, want{nodes: []int{10, 10, 10}}},
		{"one variant by name", []string{"variants[12 nodes].cluster.nodes=3"}, want{nodes: []int{6, 3, 6}}},
		{"one variant by index", []string{"variants[2].cluster.nodes=3", "cluster.nodes=5"}, want{nodes: []int{5, 5, 3}}},
		{"stream by name", []string{"streams.put.rate=5"}, want{arrived: map[string]int{"put": 50, "get": 400}}},
		{"stream by index", []string{"streams[1].rate=1.5"}, want{arrived: map[string]int{"put": 200, "get": 15}}},
		{"later set wins", []string{"streams.get.rate=5", "streams.get.rate=2"}, want{arrived: map[string]int{"put": 200, "get": 20}}},
		{"bare word is a string", []string{"keyspace.hash=ring"}, want{key: "hash (ring) of (user_id) over 12 shards on 6 nodes"}},
		{"bare scheme", []string{"keyspace.scheme=hash"}, want{key: "hash (modulo) of (user_id) over 12 shards on 6 nodes"}},
		{"quoted string", []string{`keyspace.hash="ring"`}, want{key: "hash (ring) of (user_id) over 12 shards on 6 nodes"}},
		{"array", []string{`keyspace.key=["row_id", "user_id"]`}, want{key: "hash (modulo) of (row_id, user_id) over 12 shards on 6 nodes"}},
		{"inline table", []string{`cluster={ nodes = 2 }`}, want{nodes: []int{2, 2, 2}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sc := load(t, src, scenarios.Options{Sets: tc.sets})
			if tc.want.nodes != nil {
				var got []int
				for _, v := range sc.Variants {
					got = append(got, v.Nodes)
					if n := len(v.Model().Nodes); n != v.Nodes {
						t.Errorf("variant %q: model has %d nodes, variant says %d", v.Name, n, v.Nodes)
					}
				}
				if !slices.Equal(got, tc.want.nodes) {
					t.Errorf("nodes per variant %v, want %v", got, tc.want.nodes)
				}
			}
			if tc.want.arrived != nil {
				m := sc.Variants[0].Model()
				for _, st := range m.Streams {
					if n := countArrivals(st.Arrivals, m.Duration); n != tc.want.arrived[st.Name] {
						t.Errorf("stream %q: %d arrivals in %v, want %d", st.Name, n, m.Duration, tc.want.arrived[st.Name])
					}
				}
			}
			if tc.want.key != "" {
				if got := compile.KeyDescription(sc.Variants[0].Spec); got != tc.want.key {
					t.Errorf("key %q, want %q", got, tc.want.key)
				}
			}
		})
	}
}

func TestOptionsSetsErrors(t *testing.T) {
	tests := []struct {
		name string
		sets []string
		want []string // substrings of the error
	}{
		// A problem in a command-line value names the flag, not a line of the file.
		{"unknown key", []string{"cluster.nodez=3"}, []string{"--set cluster.nodez=3: ", "unknown key"}},
		{"unknown stream", []string{"streams.nosuch.rate=5"}, []string{"streams.nosuch.rate", `"nosuch"`, `"put"`}},
		{"index out of range", []string{"streams[7].rate=5"}, []string{"streams[7].rate", "out of range"}},
		{"through a string", []string{"name.x=1"}, []string{"name.x", "not a table"}},
		{"no equals sign", []string{"cluster.nodes"}, []string{`"cluster.nodes"`, "KEY=VALUE"}},
		{"empty key", []string{"=3"}, []string{"KEY=VALUE"}},
		{"bad TOML value", []string{"cluster.nodes=[1"}, []string{"cluster.nodes", "invalid value"}},
		{"bad value", []string{"cluster.nodes=0"}, []string{"--set cluster.nodes=0: must be at least 1 (got 0)"}},
		{"no such variant", []string{"variants[zzz].cluster.nodes=3"}, []string{"--set variants[zzz].cluster.nodes=3: ", "has no [[variants]]"}},
		{"wrong type", []string{"cluster.nodes=many"}, []string{"cluster.nodes", `expected an integer, got string "many"`}},
		{"bare word where a string is wanted", []string{"keyspace.scheme=consistent"}, []string{"keyspace.scheme", `"consistent"`}},
		{"every bad set is reported", []string{"a.b", "name.x=1", "cluster.nodes=2"}, []string{`"a.b"`, "name.x"}},
		// A table the flag made up is its problem too, not the file's: the decoder reports
		// the table, not the key under it.
		{"unknown table", []string{"nosection.x=1"}, []string{"--set nosection.x=1: nosection: unknown key"}},
		{"unknown table, a slip", []string{"cahce.ttl=30s"}, []string{`--set cahce.ttl=30s: cahce: unknown key; did you mean "cache"?`}},
		// A table the file lacks, made by the flag, needs its other keys too: the flag's
		// problem, with the way out.
		{"made table lacks a required key", []string{"cache.ttl=30s"}, []string{"--set cache.ttl=30s: cache.capacity: required", "has no [cache]", "--set cache.capacity="}},
		{"unknown table in a known one", []string{"cluster.nosub.x=1"}, []string{"--set cluster.nosub.x=1: cluster.nosub: unknown key"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := loadErr(t, shopBase, scenarios.Options{Sets: tc.sets})
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not contain %q", err, w)
				}
			}
			if !strings.Contains(tc.name, "every") && strings.Contains(err.Error(), "test.toml") {
				t.Errorf("error %q blames the file for a flag's value", err)
			}
		})
	}
}

func TestOptionsVariants(t *testing.T) {
	src := shopBase + "[[variants]]\nname = \"a\"\n[[variants]]\nname = \"b\"\n[[variants]]\nname = \"c d\"\n"
	tests := []struct {
		keep    []string
		want    []string
		wantErr []string
	}{
		{keep: nil, want: []string{"a", "b", "c d"}},
		{keep: []string{"b"}, want: []string{"b"}},
		{keep: []string{"c d", "a"}, want: []string{"c d", "a"}},
		{keep: []string{"a", "zzz"}, wantErr: []string{"test.toml: ", `"zzz"`, "no such variant", `0 "a", 1 "b", 2 "c d"`}},
		{keep: []string{"c"}, want: []string{"c d"}},
		{keep: []string{"1"}, want: []string{"b"}},
		{keep: []string{"A"}, wantErr: []string{`"A"`}},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.keep, ","), func(t *testing.T) {
			opts := scenarios.Options{Variants: tc.keep}
			if tc.wantErr != nil {
				err := loadErr(t, src, opts)
				if !strings.HasPrefix(err.Error(), "test.toml") {
					t.Errorf("error %q does not start with the file name", err)
				}
				for _, w := range tc.wantErr {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q does not contain %q", err, w)
					}
				}
				return
			}
			if got := variantNames(load(t, src, opts)); !slices.Equal(got, tc.want) {
				t.Errorf("variants %q, want %q", got, tc.want)
			}
		})
	}
	// A scenario without [[variants]] has one variant, "base", which can be asked for.
	if got := variantNames(load(t, shopBase, scenarios.Options{Variants: []string{"base"}})); !slices.Equal(got, []string{"base"}) {
		t.Errorf("variants %q, want [base]", got)
	}
}

// ---- several problems at once ----

func TestSeveralProblems(t *testing.T) {
	tests := []struct {
		name string
		src  string
		// want maps each problem's key to a marker on its line.
		want map[string]string
	}{
		{
			name: "values",
			src: `name = "Not Valid"
duration = "10s"
warmup = "1m"
[cluster]
nodes = 0
[table.fields]
id = { gen = "uniform" }
ts = { gen = "time" }
[keyspace]
shards = 4
key = ["hour(id)"]
[[streams]] # first stream
name = "w"
op = "delete"
rate = -1
cost = "1ms"
[[streams]] # second stream
name = "r"
op = "read"
rate = 1
`,
			want: map[string]string{
				"name":              "Not Valid",
				"warmup":            `"1m"`,
				"cluster.nodes":     "nodes = 0",
				"table.fields.id.n": `gen = "uniform"`,
				"keyspace.key[0]":   "hour(id)",
				"streams[0].op":     "delete",
				"streams[0].rate":   "rate = -1",
				"streams[1].cost":   "# second stream",
			},
		},
		{
			name: "keys and types",
			src: `name = "typos"
duration = 10
[cluster]
node = 2
cores = "four"
[table.fields]
id = { gen = "uuid", n = "x" }
[keyspace]
shards = 4
key = "id"
[[streams]]
name = "w"
opp = "write"
`,
			want: map[string]string{
				"duration":          "duration = 10",
				"cluster.node":      "node = 2",
				"cluster.cores":     `"four"`,
				"table.fields.id.n": `n = "x"`,
				"keyspace.key":      `key = "id"`,
				"streams[0].opp":    "opp =",
				// Decoding problems do not hide the value problems of the rest of the file
				// (a misspelt key stands for the one it suggests: "opp" for "op", and
				// "node = 2", a number where the list of node tables belongs, for "nodes").
				"streams[0].rate": "[[streams]]",
				"streams[0].cost": "[[streams]]",
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			es := problems(t, loadErr(t, tc.src, scenarios.Options{}))
			if len(es) != len(tc.want) {
				t.Errorf("%d problems, want %d:\n%v", len(es), len(tc.want), es)
			}
			seen := map[string]bool{}
			for _, e := range es {
				marker, ok := tc.want[e.Key]
				if !ok {
					t.Errorf("unexpected problem %q", e.Error())
					continue
				}
				seen[e.Key] = true
				if e.File != "test.toml" {
					t.Errorf("problem %q: file %q", e.Error(), e.File)
				}
				if want := lineOf(t, tc.src, marker); e.Line != want {
					t.Errorf("problem %q at line %d, want %d", e.Error(), e.Line, want)
				}
			}
			for k := range tc.want {
				if !seen[k] {
					t.Errorf("no problem reported for %s", k)
				}
			}
		})
	}
}

// ---- key parts ----

func TestKeyParts(t *testing.T) {
	const tmpl = `name = "keys"
duration = "10s"
[cluster]
nodes = 2
[table.fields]
ts = { gen = "time" }
sf = { gen = "snowflake" }
seq = { gen = "sequence" }
user_id = { gen = "zipf", n = 1000 }
region = { gen = "categorical", values = ["a", "b"] }
[keyspace]
shards = 4
key = [%s]
[[streams]]
name = "w"
op = "write"
rate = 1
cost = "1ms"
`
	// Fields in table order (sorted by name).
	fields := []string{"region", "seq", "sf", "ts", "user_id"}
	tests := []struct {
		key    string // the TOML array's elements
		drawn  []string
		errMsg string // "" when the key is valid
	}{
		// A point stream draws the raw time field of a time bucket part too: its values name
		// the row (Stream.KeyFields); time-ordered generators draw no random numbers.
		{key: `"user_id"`, drawn: []string{"user_id"}},
		{key: `"hour(ts)"`, drawn: []string{"ts"}},
		{key: `"day(sf)", "minute(seq)"`, drawn: []string{"seq", "sf"}},
		{key: `"region", "hour(ts)"`, drawn: []string{"region", "ts"}},
		{key: `'bucket(ts, "15m")'`, drawn: []string{"ts"}},
		{key: `'bucket(sf, "1d12h")'`, drawn: []string{"sf"}},
		{key: `"bucket(ts, '15m')"`, drawn: []string{"ts"}},
		{key: `"hash(user_id, 16)"`, drawn: []string{"user_id"}},
		{key: `" hash( user_id ,16 ) "`, drawn: []string{"user_id"}},
		{key: `"hash(region, 1)", "user_id"`, drawn: []string{"region", "user_id"}},
		{key: `"ts"`, drawn: []string{"ts"}},
		{key: `"hour(user_id)"`, errMsg: `hour() needs a time-ordered field`},
		{key: `"day(region)"`, errMsg: `day() needs a time-ordered field`},
		{key: `'bucket(user_id, "15m")'`, errMsg: `bucket() needs a time-ordered field`},
		{key: `"bucket(ts)"`, errMsg: `bucket() needs a width`},
		{key: `'bucket(ts, "0s")'`, errMsg: `bucket width "0s" must be a positive duration`},
		{key: `'bucket(ts, "-1m")'`, errMsg: `must be a positive duration`},
		{key: `'bucket(ts, "soon")'`, errMsg: `bucket width "soon"`},
		{key: `"hash(user_id)"`, errMsg: `hash() needs a modulus`},
		{key: `"hash(user_id, 0)"`, errMsg: `hash modulus "0" must be a whole number >= 1`},
		{key: `"hash(user_id, -4)"`, errMsg: `hash modulus "-4"`},
		{key: `"hash(user_id, 016)"`, errMsg: `hash modulus "016"`},
		{key: `"hash(user_id, 1.5)"`, errMsg: `hash modulus "1.5"`},
		{key: `"hash(user_id, 16, 2)"`, errMsg: `hash modulus "16, 2"`},
		{key: `"hour(ts, 2)"`, errMsg: `hour() takes one field`},
		{key: `"hour(ts, )"`, errMsg: `an argument is missing after the comma`},
		{key: `"week(ts)"`, errMsg: `unknown function "week"`},
		{key: `"hour(nosuch)"`, errMsg: `no such field "nosuch"`},
		{key: `"nosuch"`, errMsg: `no such field "nosuch"`},
		{key: `"user id"`, errMsg: `cannot read key part "user id"`},
		{key: `"hour(ts"`, errMsg: `cannot read key part`},
		{key: `""`, errMsg: `cannot read key part`},
		{key: ``, errMsg: `required`},
		{key: `"region", "region", "region", "region", "region", "region", "region", "region", "region"`, errMsg: "at most 8 parts"},
	}
	for _, tc := range tests {
		t.Run(tc.key, func(t *testing.T) {
			src := fmt.Sprintf(tmpl, tc.key)
			sc, err := scenarios.LoadBytes("test.toml", []byte(src), scenarios.Options{})
			if tc.errMsg != "" {
				if err == nil {
					t.Fatalf("key [%s] accepted; want an error containing %q", tc.key, tc.errMsg)
				}
				es := problems(t, err)
				if len(es) != 1 || !strings.HasPrefix(es[0].Key, "keyspace.key") || !strings.Contains(es[0].Msg, tc.errMsg) {
					t.Errorf("key [%s]: got %q, want one keyspace.key problem containing %q", tc.key, err, tc.errMsg)
				}
				if want := lineOf(t, src, "key = ["); es[0].Line != want {
					t.Errorf("problem at line %d, want %d", es[0].Line, want)
				}
				return
			}
			if err != nil {
				t.Fatalf("key [%s]: %v", tc.key, err)
			}
			m := sc.Variants[0].Model()
			var drawn []string
			for i, g := range m.Streams[0].Fields {
				if g != nil {
					drawn = append(drawn, fields[i])
				}
			}
			if !slices.Equal(drawn, tc.drawn) {
				t.Errorf("key [%s]: fields drawn %q, want %q", tc.key, drawn, tc.drawn)
			}
		})
	}
}

// ---- placement ----

func placementScenario(seed, nodes, shards int, cluster string) string {
	return fmt.Sprintf(`name = "placement"
seed = %d
duration = "10s"
[cluster]
nodes = %d
%s
[table.fields]
id = { gen = "uuid" }
[keyspace]
shards = %d
key = ["id"]
[[streams]]
name = "w"
op = "write"
rate = 1
cost = "1ms"
`, seed, nodes, cluster, shards)
}

func TestPlacement(t *testing.T) {
	tests := []struct {
		name          string
		nodes, shards int
		cluster       string
		want          []int
		errKey        string
		errMsg        string
	}{
		{name: "default is round robin", nodes: 4, shards: 10, want: roundRobin(10, 4)},
		{name: "round robin", nodes: 3, shards: 7, cluster: `placement = "round_robin"`, want: roundRobin(7, 3)},
		{name: "fewer shards than nodes", nodes: 5, shards: 2, cluster: `placement = "round_robin"`, want: []int{0, 1}},
		{name: "explicit list", nodes: 4, shards: 4, cluster: "shard_nodes = [3, 3, 0, 1]", want: []int{3, 3, 0, 1}},
		{name: "explicit named", nodes: 2, shards: 3, cluster: "placement = \"explicit\"\nshard_nodes = [1, 1, 1]", want: []int{1, 1, 1}},
		{name: "explicit too short", nodes: 2, shards: 4, cluster: "shard_nodes = [0, 1, 0]", errKey: "cluster.shard_nodes", errMsg: "must list the node of each of the 4 shards (got 3 entries)"},
		{name: "explicit too long", nodes: 2, shards: 2, cluster: "shard_nodes = [0, 1, 0]", errKey: "cluster.shard_nodes", errMsg: "(got 3 entries)"},
		{name: "explicit without list", nodes: 2, shards: 2, cluster: `placement = "explicit"`, errKey: "cluster.shard_nodes", errMsg: "(got 0 entries)"},
		{name: "explicit node out of range", nodes: 2, shards: 3, cluster: "shard_nodes = [0, 2, 1]", errKey: "cluster.shard_nodes[1]", errMsg: "no such node: ids run from 0 to 1 (got 2)"},
		{name: "explicit negative node", nodes: 2, shards: 2, cluster: "shard_nodes = [-1, 1]", errKey: "cluster.shard_nodes[0]", errMsg: "(got -1)"},
		{name: "list with round robin", nodes: 2, shards: 2, cluster: "placement = \"round_robin\"\nshard_nodes = [0, 1]", errKey: "cluster.shard_nodes", errMsg: `applies only to placement = "explicit"`},
		{name: "unknown placement", nodes: 2, shards: 2, cluster: `placement = "zoned"`, errKey: "cluster.placement", errMsg: `(got "zoned")`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := placementScenario(1, tc.nodes, tc.shards, tc.cluster)
			if tc.errKey != "" {
				es := problems(t, loadErr(t, src, scenarios.Options{}))
				if len(es) != 1 || es[0].Key != tc.errKey || !strings.Contains(es[0].Msg, tc.errMsg) {
					t.Errorf("got %v; want one problem %s: ...%s", es, tc.errKey, tc.errMsg)
				}
				return
			}
			m := load(t, src, scenarios.Options{}).Variants[0].Model()
			if !slices.Equal(m.ShardNode, tc.want) {
				t.Errorf("placement %v, want %v", m.ShardNode, tc.want)
			}
		})
	}
}

func TestPlacementRandom(t *testing.T) {
	shapes := []struct{ nodes, shards int }{{4, 10}, {3, 3}, {1, 5}, {7, 100}, {10, 4}}
	for _, sh := range shapes {
		t.Run(fmt.Sprintf("%d nodes %d shards", sh.nodes, sh.shards), func(t *testing.T) {
			rr := roundRobin(sh.shards, sh.nodes)
			slices.Sort(rr)
			distinct := map[string]bool{}
			for seed := 1; seed <= 8; seed++ {
				src := placementScenario(seed, sh.nodes, sh.shards, `placement = "random"`)
				got := load(t, src, scenarios.Options{}).Variants[0].Model().ShardNode
				again := load(t, src, scenarios.Options{}).Variants[0].Model().ShardNode
				if !slices.Equal(got, again) {
					t.Errorf("seed %d: placement %v then %v", seed, got, again)
				}
				// A permutation of round robin: every node has as many shards as under it.
				sorted := slices.Clone(got)
				slices.Sort(sorted)
				if !slices.Equal(sorted, rr) {
					t.Errorf("seed %d: placement %v is not a permutation of round robin", seed, got)
				}
				distinct[fmt.Sprint(got)] = true
			}
			// With enough shards on several nodes the seed shows.
			if sh.nodes > 1 && sh.shards >= 10 {
				if len(distinct) < 4 {
					t.Errorf("only %d distinct placements over 8 seeds", len(distinct))
				}
				if distinct[fmt.Sprint(roundRobin(sh.shards, sh.nodes))] && len(distinct) == 1 {
					t.Errorf("random placement is round robin")
				}
			}
		})
	}
}

// TestPlacementRandomCoverage: over many seeds a random placement puts every shard on
// every node (a shuffle restricted to cycles, or one that keeps a position fixed, would not).
func TestPlacementRandomCoverage(t *testing.T) {
	const n = 4
	seen := [n][n]bool{} // [shard][node]
	for seed := 1; seed <= 100; seed++ {
		m := load(t, placementScenario(seed, n, n, `placement = "random"`), scenarios.Options{}).Variants[0].Model()
		for s, node := range m.ShardNode {
			seen[s][node] = true
		}
	}
	for s := range n {
		for node := range n {
			if !seen[s][node] {
				t.Errorf("over 100 seeds, shard %d never went to node %d", s, node)
			}
		}
	}
}

// ---- Load ----

func TestLoadBuiltin(t *testing.T) {
	names := scenarios.BuiltinNames()
	if !slices.Contains(names, scenarios.Default) || !slices.IsSorted(names) {
		t.Fatalf("BuiltinNames() = %q: want sorted, with %q", names, scenarios.Default)
	}
	files, err := filepath.Glob("*.toml")
	if err != nil || len(files) != len(names) {
		t.Errorf("%d built-in names for %d .toml files in the package (%v)", len(names), len(files), err)
	}
	t.Chdir(t.TempDir()) // built-ins load from any directory
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			sc, err := scenarios.Load(name, scenarios.Options{})
			if err != nil {
				t.Fatalf("Load(%q): %v", name, err)
			}
			if sc.Name != name {
				t.Errorf("built-in %q is named %q", name, sc.Name)
			}
			if !strings.Contains(sc.Source, name) {
				t.Errorf("Source %q does not name %q", sc.Source, name)
			}
			if sc.Description == "" {
				t.Errorf("built-in %q has no description", name)
			}
			for _, v := range sc.Variants {
				if m := v.Model(); len(m.Nodes) != v.Nodes || len(m.ShardNode) != v.Shards {
					t.Errorf("variant %q: model does not match the variant", v.Name)
				}
			}
		})
	}
	for _, ref := range []string{"no-such-scenario", "../scenarios/" + scenarios.Default, "scenarios/" + scenarios.Default, scenarios.Default + ".toml", ""} {
		_, err := scenarios.Load(ref, scenarios.Options{})
		if err == nil {
			t.Errorf("Load(%q) succeeded", ref)
			continue
		}
		if !strings.HasPrefix(err.Error(), ref+": ") || !strings.Contains(err.Error(), "built-ins: "+strings.Join(names, ", ")) {
			t.Errorf("Load(%q): error %q should name it and list the built-ins", ref, err)
		}
	}
}

func TestLoadFile(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	// A file in the current directory wins over a built-in of the same name.
	tiny := strings.Replace(shopBase, `name = "shop"`, `name = "local"`, 1)
	if err := os.WriteFile(scenarios.Default, []byte(tiny), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err := scenarios.Load(scenarios.Default, scenarios.Options{})
	if err != nil || sc.Name != "local" || sc.Source != scenarios.Default {
		t.Errorf("Load(%q) with such a file: %v, %v; want the file", scenarios.Default, sc, err)
	}
	// A path with options.
	p := filepath.Join(dir, "sub", "shop.toml")
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(shopBase+"[cluster.extra]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = scenarios.Load(p, scenarios.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), "cluster.extra") {
		t.Errorf("Load(%q): error %v; want it to name the file and the key", p, err)
	}
	// A directory is named as one, not as a file that is missing.
	_, err = scenarios.Load("sub", scenarios.Options{})
	if err == nil || !strings.HasPrefix(err.Error(), "sub: is a directory") || strings.Contains(err.Error(), "no such file") {
		t.Errorf("Load(sub), a directory: error %v; want it to say it is a directory", err)
	}
	if err := os.WriteFile(p, []byte(shopBase), 0o644); err != nil {
		t.Fatal(err)
	}
	sc, err = scenarios.Load("sub/shop.toml", scenarios.Options{Sets: []string{"cluster.nodes=2"}})
	if err != nil || sc.Source != "sub/shop.toml" || sc.Variants[0].Nodes != 2 {
		t.Errorf("Load(sub/shop.toml): %v, %v", sc, err)
	}
}

func TestFixtures(t *testing.T) {
	tests := []struct {
		file     string
		variants []string
		nodes    []int
		shards   []int
	}{
		{"testdata/ring_variants.toml", []string{"base", "six nodes", "only reads"}, []int{3, 6, 3}, []int{7, 12, 7}},
		{"testdata/salted_time.toml", []string{"base"}, []int{4}, []int{8}},
		{"../testdata/small.toml", []string{"by user", "by id"}, []int{2, 2}, []int{4, 4}},
	}
	for _, tc := range tests {
		t.Run(filepath.Base(tc.file), func(t *testing.T) {
			sc, err := scenarios.Load(tc.file, scenarios.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if got := variantNames(sc); !slices.Equal(got, tc.variants) {
				t.Fatalf("variants %q, want %q", got, tc.variants)
			}
			for i, v := range sc.Variants {
				m := v.Model()
				if len(m.Nodes) != tc.nodes[i] || len(m.ShardNode) != tc.shards[i] {
					t.Errorf("variant %q: %d nodes %d shards, want %d and %d", v.Name, len(m.Nodes), len(m.ShardNode), tc.nodes[i], tc.shards[i])
				}
			}
		})
	}
	// ring_variants: the node override, the clock schedule across midnight, the window.
	sc, err := scenarios.Load("testdata/ring_variants.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sc.Start != 23*sim.Hour+30*sim.Minute || sc.Window != 5*sim.Minute || sc.Warmup != sim.Minute || sc.Seed != 9 {
		t.Errorf("ring_variants: start %v window %v warmup %v seed %d", sc.Start, sc.Window, sc.Warmup, sc.Seed)
	}
	m := sc.Variants[0].Model()
	if want := []sim.Node{{Cores: 2, QueueLimit: 10}, {Cores: 2, QueueLimit: 10}, {Cores: 8}}; !slices.Equal(m.Nodes, want) {
		t.Errorf("nodes %v, want %v", m.Nodes, want)
	}
	if m.Network != 250*sim.Microsecond {
		t.Errorf("network %v", m.Network)
	}
	put := m.Streams[0]
	if put.Service != (sim.Service{Kind: sim.Lognormal, CV: 2}) || put.Cost != 1500*sim.Microsecond {
		t.Errorf("put: service %+v cost %v", put.Service, put.Cost)
	}
	if _, ok := put.Arrivals.(*workload.UniformArrivals); !ok {
		t.Errorf("put: arrivals %T, want uniform", put.Arrivals)
	}
	// Schedule: 10/s at 23:45 (15m), ramp to 100/s at 00:15 (45m), ramp to 0 at 1h;
	// the first 15 minutes run at the first point's rate.
	wantArrivals := 10*15*60 + (10+100)/2*30*60 + 100/2*15*60
	if n := countArrivals(put.Arrivals, m.Duration); n < wantArrivals-2 || n > wantArrivals+2 {
		t.Errorf("put: %d arrivals, want about %d", n, wantArrivals)
	}
	if get := m.Streams[1]; get.Service.Kind != sim.Constant || get.Age == nil {
		t.Errorf("get: service %+v age %v", get.Service, get.Age)
	}
}

// ---- models ----

func TestModelIndependent(t *testing.T) {
	src := `name = "tiny"
seed = 11
duration = "3s"
warmup = "500ms"
window = "500ms"
[cluster]
nodes = 2
cores = 1
queue_limit = 20
network = "100us"
[table.fields]
user_id = { gen = "zipf", n = 100, s = 1.2 }
tier = { gen = "categorical", count = 3, weights = [5, 3, 1] }
[keyspace]
shards = 5
key = ["tier", "user_id"]
salt = 3
salt_mode = "round_robin"
[[streams]]
name = "put"
op = "write"
rate = 1500
cost = "0.5ms"
[[streams]]
name = "get"
op = "read"
rate = 300
cost = "0.2ms"
service = "lognormal"
[[streams]]
name = "scan"
op = "scan"
rate = 5
cost = "1ms"
service = "constant"
`
	sc := load(t, src, scenarios.Options{})
	v := sc.Variants[0]
	m1, m2 := v.Model(), v.Model()
	// The models share nothing the caller or a run could change.
	m3 := v.Model()
	m3.Nodes[0].Cores = 99
	m3.ShardNode[0] = 1
	m3.Streams[0].Cost = sim.Hour
	if m4 := v.Model(); m4.Nodes[0].Cores != 1 || m4.ShardNode[0] != 0 || m4.Streams[0].Cost != 500*sim.Microsecond {
		t.Errorf("changing one model changed the next: %+v %v %v", m4.Nodes[0], m4.ShardNode, m4.Streams[0].Cost)
	}
	if m1.Nodes[0].Cores != 1 || m1.ShardNode[0] != 0 {
		t.Errorf("changing one model changed another")
	}
	// Run both at once: shared planners or generators would make them differ (or race).
	var r1, r2 *sim.Result
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); r1 = sim.Run(m1) }()
	go func() { defer wg.Done(); r2 = sim.Run(m2) }()
	wg.Wait()
	r3 := sim.Run(v.Model()) // and a model built after runs
	for _, r := range []*sim.Result{r2, r3} {
		compareResults(t, r1, r)
	}
	total := int64(0)
	for _, s := range r1.Streams {
		total += s.Offered
	}
	if total < 4000 {
		t.Errorf("only %d requests offered; the scenario should issue about 4500 after warmup", total)
	}
}

func compareResults(t *testing.T, a, b *sim.Result) {
	t.Helper()
	if len(a.Streams) != len(b.Streams) || len(a.Shards) != len(b.Shards) {
		t.Fatalf("results differ in shape")
	}
	for i := range a.Streams {
		x, y := a.Streams[i], b.Streams[i]
		if x.Offered != y.Offered || x.Completed != y.Completed || x.Rejected != y.Rejected ||
			x.LatencySum != y.LatencySum || x.LatencyMax != y.LatencyMax ||
			x.Subrequests != y.Subrequests || x.Partitions != y.Partitions || x.MaxFanout != y.MaxFanout {
			t.Errorf("stream %q: %+v\nvs %+v", x.Name, x, y)
		}
	}
	for i := range a.Shards {
		if !reflect.DeepEqual(a.Shards[i], b.Shards[i]) {
			t.Errorf("shard %d: %+v vs %+v", i, a.Shards[i], b.Shards[i])
		}
	}
	if !slices.Equal(a.ShardOps, b.ShardOps) || !slices.Equal(a.ShardBusy, b.ShardBusy) {
		t.Errorf("shard time series differ")
	}
}

// ---- bugs found by these tests, now fixed: each must stay fixed ----

// TestFixedCategoricalWeightsOverflow: weights that are each finite but whose sum overflows
// pass validation (resolveCategorical checks only sum <= 0), and Model then panics in
// workload.NewCategorical.
func TestFixedCategoricalWeightsOverflow(t *testing.T) {
	src := string(mustRead(t, "testdata/fuzz/FuzzLoad/weights_overflow"))
	sc, err := scenarios.LoadBytes("test.toml", []byte(src), scenarios.Options{})
	if err != nil {
		if !strings.Contains(err.Error(), "table.fields.region.weights") {
			t.Errorf("error %q does not name table.fields.region.weights", err)
		}
		return
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("regression: scenarios/resolve.go resolveCategorical accepts weights = [1e308, 1e308] (sum +Inf) and Variant.Model panics: %v", r)
		}
	}()
	sc.Variants[0].Model()
	t.Errorf("weights [1e308, 1e308] accepted and built; want them rejected")
}

// TestFixedWindowCountOverflow: resolve computes (duration + window - 1) / window, which
// overflows for durations near the int64 limit, so the 100,000-window limit is not applied
// and Model.Windows() is negative.
func TestFixedWindowCountOverflow(t *testing.T) {
	src := string(mustRead(t, "testdata/fuzz/FuzzLoad/window_overflow"))
	sc, err := scenarios.LoadBytes("test.toml", []byte(src), scenarios.Options{})
	if err != nil {
		// Today the duration itself is over the 10000d bound of every duration.
		if !strings.Contains(err.Error(), "window") && !strings.Contains(err.Error(), "duration: must be at most 10000d") {
			t.Errorf("error %q names neither the window nor the duration's bound", err)
		}
		return
	}
	if w := sc.Variants[0].Model().Windows(); w < 1 || w > 100_000 {
		t.Fatalf("regression: scenarios/resolve.go resolve: duration = \"106751d\", window = \"1d\" (106751 windows, over the 100000 limit) is accepted because duration+window-1 overflows; Model().Windows() = %d", w)
	}
	t.Errorf("106751 windows accepted; want the window limit enforced")
}

// TestFixedRingVnodesUnbounded: keyspace.vnodes has no upper limit, so Model allocates
// shards*vnodes ring points: huge values exhaust memory, and values whose product
// overflows int make it panic.
func TestFixedRingVnodesUnbounded(t *testing.T) {
	src := string(mustRead(t, "testdata/fuzz/FuzzLoad/ring_vnodes_huge"))
	sc, err := scenarios.LoadBytes("test.toml", []byte(src), scenarios.Options{})
	if err != nil {
		if !strings.Contains(err.Error(), "keyspace.vnodes") {
			t.Errorf("error %q does not name keyspace.vnodes", err)
		}
		return
	}
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("regression: scenarios/resolve.go resolveKeyspace accepts vnodes = 2^62 (no upper limit) and Variant.Model panics in keyspace.NewRing: %v", r)
		}
	}()
	sc.Variants[0].Model() // 2 shards * 2^62 vnodes overflows int: make panics at once
	t.Errorf("vnodes = 2^62 accepted; want an upper limit")
}

// TestFixedAgeErrorOrder: resolveAge ranges over the age table (a map) to report unknown
// keys, so their order in the error text changes from run to run.
func TestFixedAgeErrorOrder(t *testing.T) {
	src := mustRead(t, "testdata/fuzz/FuzzLoad/age_order")
	var first string
	for i := 0; i < 50; i++ {
		_, err := scenarios.LoadBytes("test.toml", src, scenarios.Options{})
		if err == nil {
			t.Fatal("accepted")
		}
		if i == 0 {
			first = err.Error()
			if n := strings.Count(first, "unknown key for dist"); n != 4 {
				t.Fatalf("%d unknown-key problems, want 4:\n%s", n, first)
			}
			continue
		}
		if err.Error() != first {
			t.Fatalf("regression: scenarios/resolve.go resolveAge reports unknown keys of an age table in map order; two loads gave\n%s\n---\n%s", first, err)
		}
	}
}

func mustRead(t *testing.T, corpusFile string) []byte {
	t.Helper()
	b, err := os.ReadFile(corpusFile)
	if err != nil {
		t.Fatal(err)
	}
	// A corpus file: "go test fuzz v1\n[]byte(QUOTED)\n".
	s := strings.TrimSpace(string(b))
	if i := strings.Index(s, "[]byte("); i >= 0 && strings.HasSuffix(s, ")") {
		s = s[i+len("[]byte(") : len(s)-1]
		out, err := strconv.Unquote(s)
		if err != nil {
			t.Fatalf("%s: %v", corpusFile, err)
		}
		return []byte(out)
	}
	return b
}

// TestFixedVariantCannotReplaceGenerator: variants merge into the base table by table, so a
// variant cannot drop a key the base set. A variant that switches a field from zipf (with
// s) to uniform, or the hash from ring (with vnodes) to modulo, is rejected for the base's
// leftover key, reported at the base's line as if the base were wrong. Streams, whose
// fields overrides replace the generator whole, do not have this problem.
func TestFixedVariantCannotReplaceGenerator(t *testing.T) {
	tests := []struct {
		name, base, variant string
	}{
		{
			name:    "zipf to uniform",
			base:    strings.Replace(shopBase, "n = 1000 }", "n = 1000, s = 1.1 }", 1),
			variant: "[[variants]]\nname = \"uniform users\"\ntable = { fields = { user_id = { gen = \"uniform\", n = 1000 } } }\n",
		},
		{
			name:    "ring to modulo",
			base:    strings.Replace(shopBase, "shards = 12\n", "shards = 12\nhash = \"ring\"\nvnodes = 16\n", 1),
			variant: "[[variants]]\nname = \"modulo\"\nkeyspace = { hash = \"modulo\" }\n",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			src := tc.base + "[[variants]]\nname = \"as is\"\n" + tc.variant
			sc, err := scenarios.LoadBytes("test.toml", []byte(src), scenarios.Options{})
			if err != nil {
				t.Fatalf("regression: scenarios/load.go LoadBytes merges a variant's tables into the base's key by key (tomlx.Merge), so the base's parameters of the replaced generator survive and the variant is rejected: %v", err)
			}
			if len(sc.Variants) != 2 {
				t.Errorf("%d variants", len(sc.Variants))
			}
		})
	}
}

// TestLimits: the largest values resolve.go allows load and build; one more is an error.
func TestLimits(t *testing.T) {
	tests := []struct {
		name   string
		from   string // replaced in shopBase
		ok, no string // replacements within and beyond the limit
		errKey string
	}{
		{"nodes", "nodes = 6", "nodes = 10000", "nodes = 10001", "cluster.nodes"},
		{"shards", "shards = 12", "shards = 100000", "shards = 100001", "keyspace.shards"},
		{"windows", `duration = "10s"`, "duration = \"20000s\"\nwindow = \"1s\"", "duration = \"20001s\"\nwindow = \"1s\"", "window"},
		{"categorical count", `{ gen = "uuid" }`, `{ gen = "categorical", count = 1_000_000 }`, `{ gen = "categorical", count = 1_000_001 }`, "table.fields.row_id.count"},
		{"key parts", `key = ["user_id"]`, `key = ["user_id", "user_id", "user_id", "user_id", "user_id", "user_id", "user_id", "user_id"]`, `key = ["user_id", "user_id", "user_id", "user_id", "user_id", "user_id", "user_id", "user_id", "row_id"]`, "keyspace.key"},
		{"key parts with salt", `key = ["user_id"]`, "key = [\"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\"]\nsalt = 2", "key = [\"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\", \"user_id\"]\nsalt = 2", "keyspace.key"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !strings.Contains(shopBase, tc.from) {
				t.Fatalf("%q not in the base", tc.from)
			}
			sc := load(t, strings.Replace(shopBase, tc.from, tc.ok, 1), scenarios.Options{})
			m := sc.Variants[0].Model()
			if len(m.Nodes) != sc.Variants[0].Nodes || len(m.ShardNode) != sc.Variants[0].Shards || m.Windows() < 1 || m.Windows() > 100_000 {
				t.Errorf("model: %d nodes, %d shards, %d windows", len(m.Nodes), len(m.ShardNode), m.Windows())
			}
			es := problems(t, loadErr(t, strings.Replace(shopBase, tc.from, tc.no, 1), scenarios.Options{}))
			if len(es) != 1 || es[0].Key != tc.errKey {
				t.Errorf("beyond the limit: %v; want one problem at %s", es, tc.errKey)
			}
		})
	}
}

// TestCategoricalValuesBounded: a categorical field listing more values than count may
// hold (1,000,000) is refused, as count is; 3 million values once took 1 GB to load.
func TestCategoricalValuesBounded(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(strings.Replace(shopBase, "[table.fields]", "[table.fields]\nbig = { gen = \"categorical\", values = [", 1))
	src := b.String()
	i := strings.Index(src, "values = [") + len("values = [")
	// The same value a million and one times: the count is checked before the duplicates,
	// and one-digit values parse in half the time of distinct ones.
	vals := strings.Repeat("0,", 1_000_000) + "0"
	src = src[:i] + vals + "] }" + src[i:]
	err := loadErr(t, src, scenarios.Options{})
	if !strings.Contains(err.Error(), "table.fields.big.values: must list at most 1000000 values (got 1000001)") {
		t.Errorf("error %q", err)
	}
}

// TestRunMemoryBounded: the memory bound covers the whole run, every selected variant and
// its outputs. quickstart at 10,000 nodes x 100,000 shards with 2 s windows once peaked
// past 8 GB; its shard series are now streamed to shards.csv (scenario.StreamShardCells), so
// a variant of it fits (about 0.6 GB: 36 MB of node series and 270 MB of per-shard
// state), but with 100 ms windows its node series alone pass the series bound and it is
// refused, naming the window. 40 variants that are each within the per-variant limit are
// refused as a whole (about 120 MB each); keeping one variant with --variant brings a run back under the
// bound, and every built-in fits.
func TestRunMemoryBounded(t *testing.T) {
	big := scenarios.Options{Sets: []string{"cluster.nodes=10000", "keyspace.shards=100000", `window="2s"`}, Variants: []string{"0"}}
	if _, err := scenarios.Load("quickstart", big); err != nil {
		t.Errorf("streamed: %v", err)
	}
	big.Sets[2], big.Variants = `window="100ms"`, nil
	_, err := scenarios.Load("quickstart", big)
	if err == nil || !strings.Contains(err.Error(), `--set window="100ms": 3000 windows x 10000 nodes need about 686 MB of node time series (the shard series are streamed to shards.csv)`) {
		t.Errorf("error %v", err)
	}
	var src strings.Builder
	src.WriteString(strings.Replace(shopBase, "[cluster]", "window = \"100ms\"\n[cluster]", 1))
	src.WriteString("\n")
	for i := 0; i < 40; i++ {
		fmt.Fprintf(&src, "[[variants]]\nname = \"v%d\"\ncluster = { nodes = 1000 }\nkeyspace = { shards = 10000 }\n", i)
	}
	if err := loadErr(t, src.String(), scenarios.Options{}); !strings.Contains(err.Error(), "40 variant(s)") {
		t.Errorf("40 variants: %v", err)
	}
	if _, err := scenarios.LoadBytes("test.toml", []byte(src.String()), scenarios.Options{Variants: []string{"v3"}}); err != nil {
		t.Errorf("one of the 40 variants: %v", err)
	}
	for _, name := range scenarios.BuiltinNames() {
		if _, err := scenarios.Load(name, scenarios.Options{Parallel: 2}); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestHashCoversTraces: the hash that names a scenario in a cluster sweep's manifest is
// the SHA-256 of its text alone when it replays no log, and changes with the log it
// replays, so workers that read different logs cannot be merged.
func TestHashCoversTraces(t *testing.T) {
	src := []byte(`name = "replay"
duration = "10s"
[cluster]
nodes = 2
[table.fields]
key = { gen = "uniform", n = 100 }
[keyspace]
shards = 4
key = ["key"]
[[streams]]
name  = "log"
trace = { path = "access.csv", format = "csv" }
cost  = "1ms"
`)
	dir := t.TempDir()
	path := filepath.Join(dir, "replay.toml")
	if err := os.WriteFile(path, src, 0o644); err != nil {
		t.Fatal(err)
	}
	hashWith := func(log string) string {
		t.Helper()
		if err := os.WriteFile(filepath.Join(dir, "access.csv"), []byte(log), 0o644); err != nil {
			t.Fatal(err)
		}
		sc, err := scenarios.Load(path, scenarios.Options{})
		if err != nil {
			t.Fatal(err)
		}
		return sc.SHA256
	}
	a := hashWith("ts,op,key\n0.1,write,1\n0.2,read,2\n")
	b := hashWith("ts,op,key\n0.1,write,1\n0.2,read,3\n")
	if a == b || a == fmt.Sprintf("%x", sha256.Sum256(src)) {
		t.Errorf("the hash does not follow the log: %s and %s", a, b)
	}
	sc, err := scenarios.Load("../testdata/small.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	text, _ := os.ReadFile("../testdata/small.toml")
	if want := fmt.Sprintf("%x", sha256.Sum256(text)); sc.SHA256 != want {
		t.Errorf("a scenario without logs hashes to %s, want its text's %s", sc.SHA256, want)
	}
}

// A migration's target is resolved even when --variant leaves it out, whichever way the
// migrating variant writes its actions: as [[variants.actions]] sections or as an inline
// array (actions = [ { ... } ]), which the loader once did not read, so that the target
// was dropped and the migration refused with `no such variant "hashed" (have "migrating",
// "hashed")`.
func TestVariantKeepsMigrationTarget(t *testing.T) {
	const migrate = `migrate = { to = "hashed", backfill_rate = 2000, read_cost = "10us", write_cost = "20us" }`
	const hashed = "[[variants]]\nname = \"hashed\"\nkeyspace = { scheme = \"hash\", shards = 12 }\n"
	forms := map[string]string{
		"sections": "[[variants]]\nname = \"migrating\"\n[[variants.actions]]\nat = \"06:00:05\"\n" + migrate + "\n",
		"inline":   "[[variants]]\nname = \"migrating\"\nactions = [ { at = \"06:00:05\", " + migrate + " } ]\n",
	}
	for form, v := range forms {
		t.Run(form, func(t *testing.T) {
			sc := load(t, shopBase+v+hashed, scenarios.Options{Variants: []string{"migrating"}})
			if got := variantNames(sc); !slices.Equal(got, []string{"migrating"}) {
				t.Fatalf("variants %q, want [migrating]", got)
			}
			m := sc.Variants[0].Spec.Migration
			if m == nil || m.Target == nil {
				t.Fatalf("the migration of %q has no target", "migrating")
			}
		})
	}
}
