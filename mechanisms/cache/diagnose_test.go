package cache

import (
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// TestCacheStampede: a read stream's cache misses send 100 backend reads a window for 10
// windows of a minute, but 1,000 in window 6, where node 1 of 2 runs at 95% (the others at
// 20%), and no miss ever joined another: the rule (registered) names cache_stampede,
// 1,000 against a mean of 190, at 00:06. With misses joined (single-flight on), a node at
// 50% (under stampedeNodeLoad), or 1,000 reads in the warmup's first window, none. It
// applies the rules itself (mechtest.DiagnoseRun's scenario has no warmup).
func TestCacheStampede(t *testing.T) {
	diagnoses := func(joined int64, nodeLoad float64, peakW int, warmup sim.Time) []diagnose.Diagnosis {
		const windows, nodes = 10, 2
		r := &sim.Result{Window: sim.Minute, Windows: windows, Shards: make([]sim.ShardResult, 1), Nodes: make([]sim.NodeResult, nodes),
			NodeBusy: make([]sim.Time, windows*nodes), NodeCapacity: make([]sim.Time, windows*nodes)}
		st := sim.StreamResult{Name: "view", Op: sim.Read, Win: make([]sim.WindowLatency, windows)}
		backend := make([]int64, windows)
		for w := range windows {
			backend[w] = 100
			for n := range nodes {
				load := 0.2
				if w == peakW && n == 1 {
					load = nodeLoad
				}
				r.NodeBusy[w*nodes+n], r.NodeCapacity[w*nodes+n] = sim.Time(load*float64(sim.Minute)), sim.Minute
			}
		}
		backend[peakW] = 1000
		r.Streams = []sim.StreamResult{st}
		r.Reports = []any{&metrics.CacheResult{Streams: []metrics.CacheCounts{{Backend: backend}}}}
		run := &metrics.Run{PeakLoads: []float64{0}, Streams: []metrics.Stream{{Name: "view", Op: sim.Read,
			Cache: &metrics.CacheSummary{Hits: 50_000, Joined: joined, BackendReads: 1900}}}}
		sc := &metrics.Scenario{}
		sc.Warmup = warmup
		return diagnose.Of(&diagnose.Case{Scenario: sc, Variant: &metrics.Variant{}, Result: r, Run: run})
	}
	d := diagnoses(0, 0.95, 6, 0)
	if len(d) != 1 || d[0].Kind != "cache_stampede" || d[0].Subject != "view" || d[0].Evidence["peak_backend_reads"] != 1000 ||
		d[0].Evidence["mean_backend_reads"] != 190 || d[0].Evidence["node"] != 1 || !strings.Contains(d[0].Message, "1,000 backend reads in the window at 00:06") {
		t.Errorf("a stampede: %+v, want cache_stampede of view alone, 1,000 reads against 190 at 00:06 on node 1", d)
	}
	kinds := func(d []diagnose.Diagnosis) (k []string) {
		for _, x := range d {
			k = append(k, x.Kind)
		}
		return k
	}
	for _, c := range []struct {
		name     string
		joined   int64
		nodeLoad float64
		peakW    int
		warmup   sim.Time
	}{
		{"misses joined", 5, 0.95, 6, 0},
		{"node at 50%", 0, 0.5, 6, 0},
		{"in the warmup", 0, 0.95, 0, 30 * sim.Second},
	} {
		if d := diagnoses(c.joined, c.nodeLoad, c.peakW, c.warmup); slices.Contains(kinds(d), "cache_stampede") {
			t.Errorf("%s: %v, want no cache_stampede", c.name, kinds(d))
		}
	}
}
