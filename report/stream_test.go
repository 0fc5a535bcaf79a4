package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"syscall"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// runWith runs every variant the options select, keeping their shard series (dir "") or
// streaming them to a StreamSink (as `run` does above scenario.StreamShardCells), the spools
// in dir.
func runWith(t *testing.T, dir, path string, opts scenarios.Options) (*metrics.Scenario, []Run) {
	t.Helper()
	return runWithBacklog(t, dir, path, opts, 0)
}

// runWithBacklog is runWith with the backlog at which a run is declared saturated set to
// maxQueued (0: the engine's default).
func runWithBacklog(t *testing.T, dir, path string, opts scenarios.Options, maxQueued int) (*metrics.Scenario, []Run) {
	t.Helper()
	sc, err := scenarios.Load(path, opts)
	if err != nil {
		t.Fatal(err)
	}
	var runs []Run
	for _, v := range sc.Variants {
		m := v.Model()
		if maxQueued > 0 {
			m.MaxQueued = maxQueued
		}
		if dir != "" {
			k, err := NewStreamSink(dir, m.Windows())
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { k.Close() })
			m.Sink = k
		}
		runs = append(runs, Run{Variant: describeVariant(v), Result: sim.Run(m)})
	}
	return describeScenario(sc), runs
}

// runStreamed is runWith for every variant, streamed.
func runStreamed(t *testing.T, dir, path string, sets ...string) (*metrics.Scenario, []Run) {
	return runWith(t, dir, path, scenarios.Options{Sets: sets})
}

// writeAll writes every file of runs into dir and returns them by name.
func writeAll(t *testing.T, dir string, sc *metrics.Scenario, runs []Run) map[string][]byte {
	t.Helper()
	sum := Summarize(sc, runs)
	paths, err := WriteFiles(dir, sc, runs, sum, nil)
	if err != nil {
		t.Fatal(err)
	}
	p, err := WriteHTML(dir, sc, runs, sum, nil)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]byte{}
	for _, p := range append(paths, p) {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		out[filepath.Base(p)] = b
	}
	return out
}

// TestStreamedOutputsMatch: a run whose shard series are streamed must write the same
// bytes as one that keeps them, in every file (shards.csv from the spool, the summary's
// peaks, spreads, alerts and diagnosis from the digest, report.html's heat rows from its
// binned copy), and draw the same heat and bar charts. flash-sale's first two variants,
// shortened to 20 s, have a shard that turns hot and back (hot_shard alerts) and a cache
// stampede; small.toml a scan over every shard.
func TestStreamedOutputsMatch(t *testing.T) {
	for _, c := range []struct {
		path string
		opts scenarios.Options
	}{
		{"../scenarios/flash-sale.toml", scenarios.Options{Sets: []string{`duration="20s"`}, Variants: []string{"0", "1"}}},
		{"../testdata/small.toml", scenarios.Options{Sets: []string{`duration="40s"`, `window="5s"`}}},
	} {
		sc, kept := runWith(t, "", c.path, c.opts)
		want := writeAll(t, t.TempDir(), sc, kept)
		dir := t.TempDir()
		sc2, streamed := runWith(t, dir, c.path, c.opts)
		if !streamed[0].Result.Streamed {
			t.Fatal("the run did not stream")
		}
		got := writeAll(t, dir, sc2, streamed)
		for name, b := range want {
			if !bytes.Equal(got[name], b) {
				t.Errorf("%s: %s differs between the streamed run and the kept one", c.path, name)
			}
		}
		if len(want) != 7 {
			t.Errorf("%d files written, want 7", len(want))
		}
		if a := Summarize(sc, kept).Variants[0].Alerts; c.path == "../scenarios/flash-sale.toml" && !slices.ContainsFunc(a, func(a Alert) bool { return a.Kind == "hot_shard_cleared" }) {
			t.Errorf("%s: no hot shard cleared: the comparison does not cover the alerts", c.path)
		}
		for i := range kept {
			if !reflect.DeepEqual(HeatData(sc, kept[i]), HeatData(sc2, streamed[i])) {
				t.Errorf("%s: variant %d's heat chart differs", c.path, i)
			}
		}
		if !reflect.DeepEqual(BarsData(sc, kept), BarsData(sc2, streamed)) {
			t.Errorf("%s: the bar chart differs", c.path)
		}
	}
}

// TestSummaryBounded: a streamed run of 3,000 shards on 200 nodes lists the 1,000 hottest
// in summary.json, in id order, and counts the 2,000 others; report.md says how many more
// shards.csv holds; the rest of its summary is the kept run's. With at most MaxListedShards shards, MaxListedAlerts alerts and
// 10,000 nodes (spec's maxNodes) listed, summary.json stays far under 20 MB at any size:
// each listed shard takes under 200 bytes here.
func TestSummaryBounded(t *testing.T) {
	dir := t.TempDir()
	sets := []string{"cluster.nodes=200", "keyspace.shards=3000", "streams[0].rate=1500", `duration="6s"`}
	sc, runs := runStreamed(t, dir, "../testdata/scale/scale.toml", sets...)
	files := writeAll(t, dir, sc, runs)
	// Beside the list of shards, the summary is the kept run's: node_cpu alerts and a
	// placement diagnosis, whose candidates the digest gathers in each node's peak window.
	sc2, kept := runAll(t, "../testdata/scale/scale.toml", sets...)
	a, b := Summarize(sc2, kept).Variants[0], Summarize(sc, runs).Variants[0]
	a.Shards, b.Shards = nil, nil
	if !reflect.DeepEqual(a, b) {
		t.Error("the streamed run's summary differs from the kept run's beyond the shards listed")
	}
	if !slices.ContainsFunc(b.Diagnosis, func(d Diagnosis) bool { return d.Kind == "placement" }) ||
		!slices.ContainsFunc(b.Alerts, func(a Alert) bool { return a.Kind == "node_cpu" }) {
		t.Error("no placement diagnosis or node_cpu alert: the comparison does not cover them")
	}
	var sum struct {
		Variants []struct {
			Shards     []ShardSummary `json:"shards"`
			ShardsMore int            `json:"shards_more"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(files["summary.json"], &sum); err != nil {
		t.Fatal(err)
	}
	v := sum.Variants[0]
	if len(v.Shards) != MaxListedShards || v.ShardsMore != 2000 {
		t.Fatalf("%d shards listed and %d more, want %d and 2000", len(v.Shards), v.ShardsMore, MaxListedShards)
	}
	// The hottest by their loads as listed (rounded to 4 decimals, the lower id first on
	// ties): no shard left out may be hotter than the coolest one listed.
	m := metrics.Of(runs[0].Result)
	least := 2.0
	for i, sh := range v.Shards {
		if i > 0 && sh.ID <= v.Shards[i-1].ID {
			t.Fatalf("shards not in id order at %d", i)
		}
		least = min(least, sh.Utilization)
	}
	left := 0
	for _, sh := range m.Shards {
		if metrics.Util(sh.Utilization) > least {
			left++
		}
	}
	if left > MaxListedShards {
		t.Errorf("%d shards are hotter than the coolest one listed", left)
	}
	if b, _ := json.Marshal(v.Shards); len(b) > 200*MaxListedShards {
		t.Errorf("the listed shards take %d bytes", len(b))
	}
	if !bytes.Contains(files["report.md"], []byte("And 2,995 more shards in shards.csv; summary.json lists the 1,000 hottest.")) {
		t.Error("report.md does not say how many more shards there are")
	}
	if n := bytes.Count(files["shards.csv"], []byte("\n")); n != 1+3000*6 {
		t.Errorf("shards.csv has %d lines, want 18,001", n)
	}
}

// TestBoundLists: a variant summary of 1,500 nodes, 2,500 alerts, 1,200 diagnoses and
// 2,100 events keeps the 1,000 busiest nodes in id order (node n at load n / 1,500, in an
// order shuffled by a stride of 7: nodes 500 and up), the first 2,000 alerts and events and
// the first 1,000 diagnoses, and counts the rest; report.md says so.
func TestBoundLists(t *testing.T) {
	v := VariantSummary{Name: "v"}
	for i := range 1500 {
		n := i * 7 % 1500
		v.Nodes = append(v.Nodes, NodeSummary{ID: n, Utilization: float64(n) / 1500})
	}
	for i := range 2500 {
		v.Alerts = append(v.Alerts, Alert{Kind: "node_cpu", Message: fmt.Sprint(i)})
	}
	for i := range 1200 {
		v.Diagnosis = append(v.Diagnosis, Diagnosis{Kind: "placement", Message: fmt.Sprint(i)})
	}
	for i := range 2100 {
		v.Events = append(v.Events, EventSummary{Kind: "split", Message: fmt.Sprint(i)})
	}
	v.bound()
	if len(v.Nodes) != 1000 || v.NodesMore != 500 || len(v.Alerts) != 2000 || v.AlertsMore != 500 ||
		len(v.Diagnosis) != 1000 || v.DiagnosisMore != 200 || len(v.Events) != 2000 || v.EventsMore != 100 {
		t.Fatalf("kept %d nodes (%d more), %d alerts (%d), %d diagnoses (%d), %d events (%d)", len(v.Nodes), v.NodesMore,
			len(v.Alerts), v.AlertsMore, len(v.Diagnosis), v.DiagnosisMore, len(v.Events), v.EventsMore)
	}
	for i, n := range v.Nodes {
		if i > 0 && n.ID <= v.Nodes[i-1].ID || n.ID < 500 {
			t.Fatalf("node %d (load %v) kept at %d", n.ID, n.Utilization, i)
		}
	}
	if v.Alerts[1999].Message != "1999" || v.Diagnosis[999].Message != "999" {
		t.Error("not the first alerts and diagnoses")
	}
	var b bytes.Buffer
	markdownVariant(&b, &v, true)
	for _, want := range []string{"- and 200 more, not listed.", "And 500 later alerts and 100 later events, not listed."} {
		if !bytes.Contains(b.Bytes(), []byte(want)) {
			t.Errorf("report.md lacks %q", want)
		}
	}
}

// TestSpoolDirFollowsUmask: the directory the spool makes gets 0777 less the umask, as any
// directory the user makes does (0775 under umask 002, for a lab's shared group).
func TestSpoolDirFollowsUmask(t *testing.T) {
	old := syscall.Umask(0o002)
	dir := filepath.Join(t.TempDir(), "new")
	k, err := NewStreamSink(dir, 1)
	syscall.Umask(old)
	if err != nil {
		t.Fatal(err)
	}
	k.Close()
	if st, err := os.Stat(dir); err != nil || st.Mode().Perm() != 0o775 {
		t.Errorf("%s: mode %v (%v); want 0775", dir, st.Mode().Perm(), err)
	}
}
