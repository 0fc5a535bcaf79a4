package scenarios_test

import (
	"bytes"
	"errors"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/shardsim/shardsim/internal/tomlx"
	"github.com/shardsim/shardsim/mechanisms/cache"
	"github.com/shardsim/shardsim/mechanisms/operator"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// Limits of resolve.go that every accepted scenario must respect.
const (
	fuzzMaxNodes   = 10_000
	fuzzMaxShards  = 100_000
	fuzzMaxWindows = 100_000
	fuzzMaxFields  = 64
	// ringBudget bounds shards*vnodes of the scenarios whose models the fuzzer builds;
	// see TestBugRingVnodesUnbounded.
	ringBudget = 1 << 23
)

var fuzzNameRE = regexp.MustCompile(`^[a-z0-9][a-z0-9-]*$`)

// FuzzLoad feeds arbitrary bytes to LoadBytes. An accepted scenario must build a model for
// every variant, and the models must satisfy what sim.Run relies on; a rejected one must
// say so with located errors naming the file. Models are built, never run.
func FuzzLoad(f *testing.F) {
	var seeds []string
	builtins, _ := filepath.Glob("*.toml")
	seeds = append(seeds, builtins...)
	seeds = append(seeds, "../testdata/small.toml")
	bad, _ := filepath.Glob("../testdata/bad/*.toml")
	seeds = append(seeds, bad...)
	fixtures, _ := filepath.Glob("testdata/*.toml")
	seeds = append(seeds, fixtures...)
	if len(builtins) == 0 || len(bad) == 0 {
		f.Fatalf("seed files not found (built-ins %v, bad %v)", builtins, bad)
	}
	for _, p := range seeds {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(src)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sc, err := scenarios.LoadBytes("fuzz.toml", data, scenarios.Options{})
		if err != nil {
			checkLoadError(t, data, err)
			return
		}
		checkScenario(t, data, sc)
	})
}

func checkLoadError(t *testing.T, data []byte, err error) {
	t.Helper()
	text := err.Error()
	if text == "" || !strings.HasPrefix(text, "fuzz.toml") {
		t.Fatalf("error does not start with the file name: %q", text)
	}
	var es tomlx.Errors
	if !errors.As(err, &es) || len(es) == 0 {
		t.Fatalf("error %q (%T) is not a non-empty tomlx.Errors", text, err)
	}
	lines := bytes.Count(data, []byte("\n")) + 1
	for _, e := range es {
		if e.File != "fuzz.toml" || e.Msg == "" {
			t.Errorf("badly formed problem %#v", e)
		}
		if e.Line < 0 || e.Line > lines {
			t.Errorf("problem %q: line %d outside the file's %d lines", e.Error(), e.Line, lines)
		}
	}
	// The same input gives the same report.
	_, err2 := scenarios.LoadBytes("fuzz.toml", data, scenarios.Options{})
	if err2 == nil {
		t.Fatalf("second load of the same input succeeded; first failed with %q", text)
	}
	if text2 := err2.Error(); text2 != text {
		a, b := strings.Split(text, "\n"), strings.Split(text2, "\n")
		slices.Sort(a)
		slices.Sort(b)
		t.Fatalf("two loads of the same input report differently:\n%s\n---\n%s", text, text2)
	}
}

func checkScenario(t *testing.T, data []byte, sc *scenarios.Scenario) {
	t.Helper()
	if sc.Source != "fuzz.toml" {
		t.Errorf("Source = %q", sc.Source)
	}
	if !fuzzNameRE.MatchString(sc.Name) {
		t.Errorf("accepted scenario name %q", sc.Name)
	}
	if sc.Duration <= 0 || sc.Window <= 0 || sc.Warmup < 0 || sc.Warmup >= sc.Duration {
		t.Fatalf("bad times: duration %v window %v warmup %v", sc.Duration, sc.Window, sc.Warmup)
	}
	if sc.Start < 0 || sc.Start >= 24*sim.Hour {
		t.Errorf("start %v is not a time of day", sc.Start)
	}
	if len(sc.Variants) == 0 {
		t.Fatal("no variants")
	}
	names := map[string]bool{}
	for _, v := range sc.Variants {
		if v.Name == "" || names[v.Name] {
			t.Errorf("variant name %q empty or repeated", v.Name)
		}
		names[v.Name] = true
	}
	if p := ringPoints(data); p > ringBudget {
		t.Skipf("resource guard: %d ring points are valid but too slow to build in a fuzzer", p)
	}
	for _, v := range sc.Variants {
		m := buildModel(t, v)
		checkModel(t, sc, v, m)
		// A second model of the variant shares no mutable state with the first.
		m2 := buildModel(t, v)
		if &m2.Nodes[0] == &m.Nodes[0] || &m2.ShardNode[0] == &m.ShardNode[0] {
			t.Errorf("variant %q: two models share their node or shard slices", v.Name)
		}
		for i := range m.Streams {
			// (A closed-loop stream has no arrival process: its clients issue its requests.)
			if m.Streams[i].Planner == m2.Streams[i].Planner || (m.Streams[i].Arrivals != nil && m.Streams[i].Arrivals == m2.Streams[i].Arrivals) {
				t.Errorf("variant %q stream %q: two models share a planner or an arrival process", v.Name, m.Streams[i].Name)
			}
		}
	}
	// Keeping one variant by name keeps exactly that one.
	want := sc.Variants[len(sc.Variants)-1].Name
	one, err := scenarios.LoadBytes("fuzz.toml", data, scenarios.Options{Variants: []string{want}})
	if err != nil || len(one.Variants) != 1 || one.Variants[0].Name != want {
		t.Errorf("Options.Variants = [%q]: got %v, %v", want, one, err)
	}
}

// buildModel calls v.Model, turning a panic into a test failure (or into a skip for the
// known bugs that the skipped tests of load_test.go pin down).
func buildModel(t *testing.T, v *scenarios.Variant) (m *sim.Model) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("variant %q: Model panicked: %v", v.Name, r)
		}
	}()
	return v.Model()
}

func checkModel(t *testing.T, sc *scenarios.Scenario, v *scenarios.Variant, m *sim.Model) {
	t.Helper()
	if m.Seed != sc.Seed || m.Duration != sc.Duration || m.Warmup != sc.Warmup || m.Window != sc.Window {
		t.Errorf("variant %q: model times/seed %v %v %v %v differ from the scenario's", v.Name, m.Seed, m.Duration, m.Warmup, m.Window)
	}
	if m.Duration <= 0 || m.Window <= 0 || m.Warmup < 0 || m.Network < 0 {
		t.Fatalf("variant %q: duration %v window %v warmup %v network %v", v.Name, m.Duration, m.Window, m.Warmup, m.Network)
	}
	if w := m.Windows(); w < 1 || w > fuzzMaxWindows {
		t.Errorf("variant %q: %d windows", v.Name, w)
	}
	if len(m.Nodes) < 1 || len(m.Nodes) > fuzzMaxNodes || len(m.Nodes) != v.Nodes {
		t.Fatalf("variant %q: %d nodes (Variant.Nodes %d)", v.Name, len(m.Nodes), v.Nodes)
	}
	for i, n := range m.Nodes {
		if n.Cores < 1 || n.QueueLimit < 0 {
			t.Errorf("variant %q: node %d has %d cores, queue limit %d", v.Name, i, n.Cores, n.QueueLimit)
		}
	}
	if len(m.ShardNode) < 1 || len(m.ShardNode) > fuzzMaxShards || len(m.ShardNode) != v.Shards {
		t.Fatalf("variant %q: %d shards (Variant.Shards %d)", v.Name, len(m.ShardNode), v.Shards)
	}
	for s, n := range m.ShardNode {
		if n < 0 || n >= len(m.Nodes) {
			t.Fatalf("variant %q: shard %d on node %d of %d", v.Name, s, n, len(m.Nodes))
		}
	}
	if len(m.Streams) == 0 || len(m.Streams) != len(v.Streams) {
		t.Fatalf("variant %q: %d streams in the model, %d in the variant", v.Name, len(m.Streams), len(v.Streams))
	}
	for i, st := range m.Streams {
		if st.Name != v.Streams[i].Name || st.Op != v.Streams[i].Op {
			t.Errorf("variant %q: model stream %d is %q %v, variant says %q %v", v.Name, i, st.Name, st.Op, v.Streams[i].Name, v.Streams[i].Op)
		}
		if st.Planner == nil || (st.Arrivals == nil && st.Clients == 0) { // closed-loop clients need no arrivals
			t.Fatalf("variant %q stream %q: planner %v, arrivals %v", v.Name, st.Name, st.Planner, st.Arrivals)
		}
		if st.Op > sim.Scan || st.Cost <= 0 || st.Service.Kind > sim.Lognormal {
			t.Errorf("variant %q stream %q: op %v cost %v service %v", v.Name, st.Name, st.Op, st.Cost, st.Service)
		}
		if st.Service.Kind == sim.Lognormal && !(st.Service.CV > 0) {
			t.Errorf("variant %q stream %q: lognormal CV %v", v.Name, st.Name, st.Service.CV)
		}
		if len(st.Fields) < 1 || len(st.Fields) > fuzzMaxFields || len(st.Fields) != len(m.Streams[0].Fields) {
			t.Errorf("variant %q stream %q: %d fields", v.Name, st.Name, len(st.Fields))
		}
		for _, f := range st.KeyFields {
			if f < 0 || f >= len(st.Fields) || st.Fields[f] == nil {
				t.Errorf("variant %q stream %q: key field %d is not drawn", v.Name, st.Name, f)
			}
		}
		if st.Client.Retries < 0 || st.Client.Timeout < 0 || (cached(m, i) && st.Op != sim.Read) {
			t.Errorf("variant %q stream %q: client %+v, cache %v", v.Name, st.Name, st.Client, cached(m, i))
		}
		if r := replicasOf(m); r != nil && (len(r.ApplyCost) != len(m.Streams) || r.ApplyCost[i] <= 0) {
			t.Errorf("variant %q stream %q: followers' apply costs %v", v.Name, st.Name, r.ApplyCost)
		}
	}
	if r := replicasOf(m); r != nil && (r.Followers < 0 || r.Followers >= len(m.Nodes)) {
		t.Errorf("variant %q: %d replicas on %d nodes", v.Name, r.Followers, len(m.Nodes))
	}
	if sp := splitOf(m); (sp != nil) != (v.Spec != nil && v.Spec.Split != nil) || (sp != nil && (sp.Splitter == nil || v.MaxShards < len(m.ShardNode) || sp.Splitter.Max() != v.MaxShards)) {
		t.Errorf("variant %q: split %+v, max shards %d", v.Name, sp, v.MaxShards)
	}
	for i, a := range actionsOf(m) {
		if a.At < 0 || a.At >= m.Duration || (i > 0 && a.At < actionsOf(m)[i-1].At) || a.Text == "" {
			t.Errorf("variant %q: action %d %+v", v.Name, i, a)
		}
		switch a.Change {
		case operator.Cores, operator.QueueLimit:
			if a.Node < 0 || a.Node >= len(m.Nodes) || (a.Change == operator.Cores && a.Cores < 1) || a.QueueLimit < 0 {
				t.Errorf("variant %q: action %d %+v", v.Name, i, a)
			}
		case operator.ClientLimit:
			if a.Stream < 0 || a.Stream >= len(m.Streams) || !a.Client {
				t.Errorf("variant %q: action %d %+v", v.Name, i, a)
			}
		case operator.Noted:
			// Another mechanism's, which applies it: a client's is a cache's switch.
			if k := cacheOf(m); a.Client && (k == nil || !slices.ContainsFunc(k.Switches, func(sw cache.Switch) bool { return sw.At == a.At })) {
				t.Errorf("variant %q: action %d %+vwithout a cache", v.Name, i, a)
			}
		}
	}
}

// ringPoints returns the largest shards*vnodes that any part of the document could give a
// ring: the largest shards count and the largest vnodes count (64 when absent) found in the
// base keyspace and the variants' keyspaces. It is 0 when the text is not TOML.
func ringPoints(data []byte) int64 {
	var root map[string]any
	if _, err := toml.Decode(string(data), &root); err != nil {
		return 0
	}
	maxShards, maxVnodes := int64(0), int64(64)
	look := func(m map[string]any) {
		ks, _ := m["keyspace"].(map[string]any)
		if n, ok := ks["shards"].(int64); ok {
			maxShards = max(maxShards, n)
		}
		if n, ok := ks["vnodes"].(int64); ok {
			maxVnodes = max(maxVnodes, n)
		}
	}
	look(root)
	if vs, ok := root["variants"].([]map[string]any); ok {
		for _, v := range vs {
			look(v)
		}
	}
	if maxShards > 0 && maxVnodes > math.MaxInt64/maxShards {
		return math.MaxInt64
	}
	return maxShards * maxVnodes
}

// FuzzSet feeds arbitrary --set values to LoadBytes over a fixed scenario with variants. An
// accepted one must give a scenario that builds, as FuzzLoad checks; a rejected one must
// name the flag (or the file, for a value the file's own keys then conflict with), never
// panic, and report the same way twice.
func FuzzSet(f *testing.F) {
	base, err := os.ReadFile("quickstart.toml")
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		"cluster.nodes=3", "cluster.nodes=0", "streams.get_profile.rate=1e12", `cluster.network="2562047h47m16.854775807s"`,
		"variants[1].cluster.nodes=2", "variants[zzz].x=1", "keyspace.scheme=range", `keyspace.key=["user_id", "hour(ts)"]`,
		"streams[9].rate=1", "a.b.c", "x=" + strings.Repeat("[", 40), "window=1s", `duration="1s"`, "seed=-1",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, set string) {
		opts := scenarios.Options{Sets: []string{set}}
		sc, err := scenarios.LoadBytes("fuzz.toml", base, opts)
		if err == nil {
			checkScenario(t, base, sc)
			return
		}
		var es tomlx.Errors
		if !errors.As(err, &es) || len(es) == 0 {
			t.Fatalf("error %q (%T) is not a non-empty tomlx.Errors", err, err)
		}
		for _, e := range es {
			if e.Msg == "" || (e.File != "fuzz.toml" && !strings.HasPrefix(e.File, "--set") && e.File != "") {
				t.Errorf("badly formed problem %#v", e)
			}
		}
		if _, err2 := scenarios.LoadBytes("fuzz.toml", base, opts); err2 == nil || err2.Error() != err.Error() {
			t.Fatalf("two loads report differently:\n%v\n---\n%v", err, err2)
		}
	})
}
