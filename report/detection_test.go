package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/keyspace"
	"github.com/shardsim/shardsim/mechanisms/limits"
	"github.com/shardsim/shardsim/scenario"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// handBuilt is a hand-made result of the small scenario's shape (testdata/small.toml: a
// write stream "put" and a scan "scan"), with `shards` shards, one per node of one core,
// over `windows` windows of one minute. load[w][s] sets shard s's CPU time in window w as a
// fraction of its node's capacity; every node carries only its shard.
func handBuilt(t *testing.T, shards, windows int, load func(w, s int) float64) (*metrics.Scenario, Run) {
	t.Helper()
	sc, r := handBuiltSpec(t, shards, windows, load)
	return describeScenario(sc), Run{Variant: describeVariant(sc.Variants[0]), Result: r}
}

// handBuiltSpec is handBuilt's scenario, before compile.Describe, and its result.
func handBuiltSpec(t *testing.T, shards, windows int, load func(w, s int) float64) (*scenarios.Scenario, *sim.Result) {
	t.Helper()
	sc, err := scenarios.Load("../testdata/small.toml", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	sc.Start, sc.Window, sc.Duration = 8*sim.Hour, sim.Minute, sim.Time(windows)*sim.Minute
	r := &sim.Result{Duration: sc.Duration, Elapsed: sc.Duration, Window: sim.Minute, Windows: windows}
	for s := 0; s < shards; s++ {
		r.Shards = append(r.Shards, sim.ShardResult{Node: s, Home: s, Parent: -1})
		r.Nodes = append(r.Nodes, sim.NodeResult{Cores: 1})
	}
	r.ShardBusy = make([]sim.Time, windows*shards)
	r.ShardOps = make([]int64, windows*shards)
	r.ShardMaxQueue = make([]int32, windows*shards)
	r.NodeMaxQueue = make([]int32, windows*shards)
	r.NodeBusy = make([]sim.Time, windows*shards)
	r.NodeCapacity = make([]sim.Time, windows*shards)
	for w := 0; w < windows; w++ {
		for s := 0; s < shards; s++ {
			i := w*shards + s
			busy := sim.Time(load(w, s) * float64(sim.Minute))
			r.ShardBusy[i], r.NodeBusy[i], r.NodeCapacity[i] = busy, busy, sim.Minute
			r.Shards[s].Busy += busy
			r.Nodes[s].Busy += busy
			r.ShardOps[i] = int64(busy / sim.Millisecond)
			r.Shards[s].Ops += r.ShardOps[i]
		}
	}
	for _, name := range []string{"put", "scan"} {
		st := sim.StreamResult{Name: name, Op: sim.Write, Win: make([]sim.WindowLatency, windows), Latency: newHist(t, 1000)}
		if name == "scan" {
			st.Op = sim.Scan
		}
		r.Streams = append(r.Streams, st)
	}
	return sc, r
}

func kinds(ds []Diagnosis) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Kind)
	}
	return out
}

// A hot key: user 7 takes 20% of the writes and lives on shard 2, which runs at 95% while
// the others run at 20%. The diagnosis names the key, its share and the loads.
func TestDiagnoseHotKey(t *testing.T) {
	sc, run := handBuilt(t, 8, 4, func(w, s int) float64 {
		if s == 2 {
			return 0.95
		}
		return 0.2
	})
	put := &run.Result.Streams[0]
	put.Offered, put.Completed = 100_000, 100_000
	put.HotKeys = []sim.KeyCount{{Values: []uint64{7}, Count: 20_000, Error: 100, Shard: 2}, {Values: []uint64{9}, Count: 1000, Error: 100, Shard: 5}}
	s := Summarize(sc, []Run{run})
	v := s.Variants[0]
	if len(v.Diagnosis) != 1 || v.Diagnosis[0].Kind != "hot_key" {
		t.Fatalf("diagnosis %v, want one hot_key", kinds(v.Diagnosis))
	}
	d := v.Diagnosis[0]
	for _, want := range []string{"user_id=7", "20.0% of put's writes", "shard 2 runs at 95.0%", "median shard runs at 20.0%", "salt"} {
		if !strings.Contains(d.Message, want) {
			t.Errorf("message %q does not say %q", d.Message, want)
		}
	}
	if d.Evidence["share"] != 0.2 || d.Evidence["shard"] != 2 || d.Evidence["shard_load"] != 0.95 {
		t.Errorf("evidence %v", d.Evidence)
	}
	if len(v.HotKeys) != 1 || v.HotKeys[0].Keys[0].Key != "user_id=7" || v.HotKeys[0].Keys[0].Share != 0.2 {
		t.Errorf("hot keys %+v", v.HotKeys)
	}
	var text strings.Builder
	Text(&text, s)
	if !strings.Contains(text.String(), "- hot_key: user_id=7 takes 20.0%") || !strings.Contains(text.String(), "hot keys (top 5") {
		t.Errorf("text lacks the hot key and its diagnosis:\n%s", text.String())
	}
}

// A key whose count is mostly sketch error is not a hot key, whatever its estimate.
func TestDiagnoseIgnoresSketchNoise(t *testing.T) {
	sc, run := handBuilt(t, 8, 4, func(w, s int) float64 {
		if s == 2 {
			return 0.95
		}
		return 0.2
	})
	put := &run.Result.Streams[0]
	put.Offered = 100_000
	put.HotKeys = []sim.KeyCount{{Values: []uint64{7}, Count: 8000, Error: 7990, Shard: 2}}
	v := Summarize(sc, []Run{run}).Variants[0]
	if len(v.Diagnosis) != 1 || v.Diagnosis[0].Kind != "hot_shard_many_keys" {
		t.Fatalf("diagnosis %v, want hot_shard_many_keys (the key's count is noise)", kinds(v.Diagnosis))
	}
	if !strings.Contains(v.Diagnosis[0].Message, "shard 2 runs at 95.0%") || !strings.Contains(v.Diagnosis[0].Message, "4.7 times the median") {
		t.Errorf("message %q", v.Diagnosis[0].Message)
	}
}

// A monotonic key: 50,000 distinct partitions written, none above 0.1%, yet the last
// shard gains 99% of the rows and runs at 90% while the rest idle. Under a range scheme
// that is a key growing with time; under hash, where a key's place says nothing of its
// order, it is not (the review's counter2.toml: a uniform id, hash-sharded, was called
// monotonic); nor is it when the rows that pile up are another stream's (counted by
// stream in ShardRows).
func TestDiagnoseMonotonic(t *testing.T) {
	build := func(scheme keyspace.SchemeKind, ownRows []int64) VariantSummary {
		sc, run := handBuilt(t, 4, 3, func(w, s int) float64 {
			if s == 3 {
				return 0.9
			}
			return 0.01
		})
		run.Variant.Scheme = scheme
		r := run.Result
		put := &r.Streams[0]
		put.Offered = 60_000
		put.PartitionsWritten = 50_000
		put.HotKeys = []sim.KeyCount{{Values: []uint64{1}, Count: 2, Error: 1, Shard: 3}}
		put.HotPartitions = []sim.KeyCount{{Values: []uint64{1}, Count: 2, Error: 1, Shard: 3}}
		put.ShardRows = ownRows
		for s := range r.Shards {
			r.Shards[s].Rows = 200
		}
		r.Shards[3].Rows = 59_400
		return Summarize(sc, []Run{run}).Variants[0]
	}
	v := build("range", nil)
	if got := kinds(v.Diagnosis); len(got) != 1 || got[0] != "monotonic_key" {
		t.Fatalf("range: diagnosis %v, want monotonic_key alone", got)
	}
	d := v.Diagnosis[0]
	if !strings.Contains(d.Message, "50,000 distinct partitions") || !strings.Contains(d.Message, "shard 3, the highest of the range, took 99.0% of the rows it wrote") ||
		!strings.Contains(d.Message, "composite key") {
		t.Errorf("message %q", d.Message)
	}
	if d.Evidence["row_share"] != 0.99 || d.Evidence["partitions_written"] != 50_000 {
		t.Errorf("evidence %v", d.Evidence)
	}
	if len(v.HotPartitions) != 1 || v.HotPartitions[0].PartitionsWritten != 50_000 {
		t.Errorf("hot partitions %+v", v.HotPartitions)
	}
	if got := kinds(build("hash", nil).Diagnosis); slices.Contains(got, "monotonic_key") {
		t.Errorf("hash: diagnosis %v, want no monotonic_key", got)
	}
	if got := kinds(build("range", []int64{15_000, 15_000, 15_000, 15_000}).Diagnosis); slices.Contains(got, "monotonic_key") {
		t.Errorf("range, put's own rows spread evenly: diagnosis %v, want no monotonic_key", got)
	}
}

// Low cardinality: 3 partitions over 8 shards; 5 shards get no rows.
func TestDiagnoseLowCardinality(t *testing.T) {
	sc, run := handBuilt(t, 8, 2, func(w, s int) float64 {
		if s < 3 {
			return 0.6
		}
		return 0
	})
	r := run.Result
	put := &r.Streams[0]
	put.Offered, put.PartitionsWritten = 30_000, 3
	put.HotKeys = []sim.KeyCount{{Values: []uint64{0}, Count: 10_000, Shard: 0}, {Values: []uint64{1}, Count: 10_000, Shard: 1}, {Values: []uint64{2}, Count: 10_000, Shard: 2}}
	put.HotPartitions = put.HotKeys
	for s := 0; s < 3; s++ {
		r.Shards[s].Rows = 10_000
	}
	v := Summarize(sc, []Run{run}).Variants[0]
	got := kinds(v.Diagnosis)
	if !strings.Contains(strings.Join(got, " "), "low_cardinality") || strings.Contains(strings.Join(got, " "), "hot_shard_many_keys") {
		t.Fatalf("diagnosis %v, want low_cardinality and no unexplained hot shard", got)
	}
	for _, d := range v.Diagnosis {
		if d.Kind == "low_cardinality" && !strings.Contains(d.Message, "only 3 distinct partitions over 8 shards, so 3 shards took every row written while 5 got none") {
			t.Errorf("message %q", d.Message)
		}
	}
}

// A dominant tenant: keys (tenant, user) whose first value 7 together take 40%.
func TestDiagnoseDominantTenant(t *testing.T) {
	sc, run := handBuilt(t, 8, 2, func(w, s int) float64 {
		if s == 6 {
			return 0.92
		}
		return 0.15
	})
	put := &run.Result.Streams[0]
	put.Offered = 100_000
	put.HotKeys = []sim.KeyCount{
		{Values: []uint64{7, 1}, Count: 15_000, Shard: 6}, {Values: []uint64{7, 2}, Count: 14_000, Shard: 6},
		{Values: []uint64{7, 3}, Count: 11_000, Shard: 6}, {Values: []uint64{3, 1}, Count: 900, Shard: 1},
	}
	v := Summarize(sc, []Run{run}).Variants[0]
	if got := kinds(v.Diagnosis); len(got) != 1 || got[0] != "dominant_tenant" {
		t.Fatalf("diagnosis %v, want dominant_tenant alone", got)
	}
	if d := v.Diagnosis[0]; !strings.Contains(d.Message, "at least 40.0% of put's writes") || !strings.Contains(d.Message, "directory") {
		t.Errorf("message %q", d.Message)
	}
}

// A balanced variant, even with a popular key, has no diagnosis, and its text says so.
func TestDiagnoseBalanced(t *testing.T) {
	sc, run := handBuilt(t, 8, 3, func(w, s int) float64 { return 0.7 + 0.01*float64(s%2) })
	put := &run.Result.Streams[0]
	put.Offered = 100_000
	put.HotKeys = []sim.KeyCount{{Values: []uint64{7}, Count: 9000, Shard: 2}}
	put.PartitionsWritten = 40_000
	put.HotPartitions = []sim.KeyCount{{Values: []uint64{7}, Count: 9000, Shard: 2}}
	for s := range run.Result.Shards {
		run.Result.Shards[s].Rows = 5000
	}
	s := Summarize(sc, []Run{run})
	if d := s.Variants[0].Diagnosis; d == nil || len(d) != 0 {
		t.Fatalf("diagnosis %v, want an empty list", kinds(d))
	}
	var text strings.Builder
	Text(&text, s)
	if !strings.Contains(text.String(), "diagnosis: no hotspot found") {
		t.Errorf("text does not say no hotspot was found:\n%s", text.String())
	}
}

// Without the engine's detection figures, the report omits the new sections.
func TestDetectionSectionsOmittedWhenEmpty(t *testing.T) {
	sc, run := handBuilt(t, 4, 2, func(w, s int) float64 { return 0.3 })
	s := Summarize(sc, []Run{run})
	v := s.Variants[0]
	if v.HotKeys != nil || v.HotPartitions != nil || v.LatencyOutliers != nil || v.Events != nil || v.Streams[0].Cache != nil {
		t.Errorf("empty sections present: %+v", v)
	}
	var text strings.Builder
	Text(&text, s)
	for _, no := range []string{"hot keys", "hot partitions", "client and cache", "latency outliers"} {
		if strings.Contains(text.String(), no) {
			t.Errorf("text shows an empty %q section", no)
		}
	}
}

// Latency outliers: keys with enough samples whose mean passes 10x the median key's mean.
func TestLatencyOutliers(t *testing.T) {
	sc, run := handBuilt(t, 4, 2, func(w, s int) float64 { return 0.3 })
	put := &run.Result.Streams[0]
	for k := uint64(0); k < 9; k++ {
		put.KeyLatencies = append(put.KeyLatencies, sim.KeyLatency{Values: []uint64{k}, Samples: 60, Mean: 2 * sim.Millisecond, Shard: int(k % 4)})
	}
	put.KeyLatencies = append(put.KeyLatencies,
		sim.KeyLatency{Values: []uint64{42}, Samples: 80, Mean: 50 * sim.Millisecond, Shard: 1}, // 25x: an outlier
		sim.KeyLatency{Values: []uint64{43}, Samples: 10, Mean: 90 * sim.Millisecond, Shard: 1}, // too few samples
		sim.KeyLatency{Values: []uint64{44}, Samples: 70, Mean: 19 * sim.Millisecond, Shard: 2}, // 9.5x: not one
	)
	out := Summarize(sc, []Run{run}).Variants[0].LatencyOutliers
	if len(out) != 1 || out[0].Key != "user_id=42" || out[0].Ratio != 25 || out[0].MedianMs != 2 || out[0].Samples != 80 || out[0].Shard != 1 {
		t.Fatalf("outliers %+v, want user_id=42 at 25x the median key", out)
	}
}

// Client and cache counts reach the summary; the cache object only when the cache served.
func TestClientAndCacheCounts(t *testing.T) {
	sc, run := handBuilt(t, 4, 2, func(w, s int) float64 { return 0.3 })
	put := &run.Result.Streams[0]
	put.Offered, put.Attempts, put.Retries, put.TimedOut, put.Failed[limits.Throttled], put.Limited = 1000, 1300, 300, 20, 30, 100
	scan := &run.Result.Streams[1]
	scan.Offered = 1000
	cache := &metrics.CacheResult{Streams: make([]metrics.CacheCounts, len(run.Result.Streams))}
	cache.Streams[1] = metrics.CacheCounts{Hits: 900, Stale: 50, Joined: 10, BackendReads: 90, Backend: make([]int64, run.Result.Windows)}
	run.Result.Reports = append(run.Result.Reports, cache)
	s := Summarize(sc, []Run{run})
	p, c := s.Variants[0].Streams[0], s.Variants[0].Streams[1]
	if p.Attempts != 1300 || p.Retries != 300 || p.TimedOut != 20 || p.Throttled != 30 || p.Limited != 100 || p.Cache != nil {
		t.Errorf("put %+v", p)
	}
	if c.Cache == nil || c.Cache.HitRatio != 0.9 || c.Cache.BackendReads != 90 || c.Cache.Stale != 50 || c.Cache.Joined != 10 {
		t.Errorf("scan cache %+v", c.Cache)
	}
	var text strings.Builder
	Text(&text, s)
	if !strings.Contains(text.String(), "client and cache:") || !strings.Contains(text.String(), "90.0%") || !strings.Contains(text.String(), "1,300") {
		t.Errorf("text lacks the client and cache table:\n%s", text.String())
	}
}

// Skew series: equal loads have Gini 0 and ratios 1; one shard of four taking the load
// gives Gini 3/4 and an undefined (nil) ratio to the idle median.
func TestSkewSeries(t *testing.T) {
	_, run := handBuilt(t, 4, 2, func(w, s int) float64 {
		if w == 0 {
			return 0.5
		}
		if s == 1 {
			return 0.8
		}
		return 0
	})
	ws := metrics.SkewSeries(run.Result)
	even, hot := ws[0].Shards, ws[1].Shards
	if even.Gini != 0 || *even.MaxOverMedian != 1 || *even.P95OverP50 != 1 || math.Abs(even.Max-0.5) > 1e-12 {
		t.Errorf("even window %+v", even)
	}
	if math.Abs(hot.Gini-0.75) > 1e-12 || hot.MaxOverMedian != nil || hot.P95OverP50 != nil || math.Abs(hot.Max-0.8) > 1e-12 {
		t.Errorf("one-takes-all window %+v", hot)
	}
	if ws[1].Nodes.Gini != hot.Gini {
		t.Errorf("one shard per node: node Gini %v, shard Gini %v", ws[1].Nodes.Gini, hot.Gini)
	}
	var b strings.Builder
	if err := skewCSV(&b, &metrics.Scenario{}, slices.Values([]Run{run})); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "variant,window_start,t_s,shard_max,") {
		t.Fatalf("skew.csv:\n%s", b.String())
	}
	if !strings.HasPrefix(lines[2], "by user,00:01,60,0.8,0,,,0.75,") {
		t.Errorf("second window row %q", lines[2])
	}
}

// Detection timing: node 2 passes 90% in window 3 (08:03); the node_cpu alert fires at
// the end of that window (one window later), the hot_shard alert (which needs three times
// the median) at the end of window 5, and a p99 alert in window 7: each reports its lag
// from 08:03. A throttle alert with no node above the line is timed from its own window.
func TestDetectionTiming(t *testing.T) {
	sc, run := handBuilt(t, 4, 10, func(w, s int) float64 {
		switch {
		case s == 2 && w >= 3:
			return 0.95
		case w >= 3 && w < 5:
			return 0.5 // the median keeps the hot-shard detector quiet until window 5
		}
		return 0.1
	})
	run.Variant.Streams[0].SLO = []sim.Time{20 * sim.Millisecond}
	put := &run.Result.Streams[0]
	for w := range put.Win {
		var h sim.WindowHist
		if w == 7 {
			h.RecordValues(90_000, 100)
		} else {
			h.RecordValues(5000, 100)
		}
		put.Win[w].Completed, put.Win[w].Hist = h.TotalCount(), h
	}
	put.Win[1].Failed[limits.Throttled], put.Win[1].Errors = 4, 4
	put.Win[8].Errors = 3
	alerts := diagnose.Alerts(sc, run.Variant, run.Result)
	byKind := map[string]Alert{}
	for _, a := range alerts {
		if _, ok := byKind[a.Kind]; !ok {
			byKind[a.Kind] = a
		}
	}
	for kind, want := range map[string]struct {
		at    string
		after float64
		words string
	}{
		"node_cpu":  {"08:04", 60, "fired 1m after node 2 passed 90% at 08:03"},
		"hot_shard": {"08:06", 180, "fired 3m after its node 2 passed 90% at 08:03"},
		"latency":   {"08:08", 300, "fired 5m after node 2 passed 90% at 08:03"},
		"errors":    {"08:09", 360, "fired 6m after node 2"},
		"throttled": {"08:02", 60, "no node was above 90% before it"},
	} {
		a, ok := byKind[kind]
		if !ok {
			t.Errorf("no %s alert in %+v", kind, alerts)
			continue
		}
		if a.At != want.at || a.DetectedAfterS != want.after || !strings.Contains(a.Detection, want.words) {
			t.Errorf("%s: at %s after %vs %q; want at %s after %vs %q", kind, a.At, a.DetectedAfterS, a.Detection, want.at, want.after, want.words)
		}
	}
	if a := byKind["throttled"]; a.Onset != "08:01" {
		t.Errorf("throttled onset %s, want its own window 08:01", a.Onset)
	}
	if _, ok := byKind["node_cpu_cleared"]; ok {
		t.Error("node 2 never drops under the line, yet its alert cleared")
	}
}

// When the engine samples, shares are of the sampled requests and the text scales them up.
func TestHotKeySharesOfSample(t *testing.T) {
	sc, run := handBuilt(t, 4, 2, func(w, s int) float64 { return 0.3 })
	put := &run.Result.Streams[0]
	put.Offered, put.SampledRequests = 160_000, 10_000
	put.HotKeys = []sim.KeyCount{{Values: []uint64{5}, Count: 2000, Shard: 1}}
	s := Summarize(sc, []Run{run})
	hk := s.Variants[0].HotKeys[0]
	if hk.Counted != 10_000 || hk.Keys[0].Share != 0.2 {
		t.Errorf("hot keys %+v, want a 20%% share of 10,000 counted", hk)
	}
	var text strings.Builder
	Text(&text, s)
	if !strings.Contains(text.String(), "user_id=5  20.0%     32,000") {
		t.Errorf("text does not scale the count to all requests:\n%s", text.String())
	}
}

// A synchronized burst: 4 shards on 4 nodes run at 10% except in every fifth window, where
// all run at 100% (20 windows: bursts at 0, 5, 10, 15). Mean 28% < peak / 2, peak >= 90%,
// three gaps of 5 windows: synchronized_burst with a 5-minute period. Shifting one shard's
// bursts so that no window has the whole cluster above the midpoint removes it, and a
// single burst (no period) is not enough.
func TestDiagnoseSynchronizedBurst(t *testing.T) {
	sc, run := handBuilt(t, 4, 20, func(w, s int) float64 {
		if w%5 == 0 {
			return 1
		}
		return 0.1
	})
	v := Summarize(sc, []Run{run}).Variants[0]
	var d *Diagnosis
	for i := range v.Diagnosis {
		if v.Diagnosis[i].Kind == "synchronized_burst" {
			d = &v.Diagnosis[i]
		}
	}
	if d == nil {
		t.Fatalf("diagnosis %v, want synchronized_burst", kinds(v.Diagnosis))
	}
	if d.Evidence["period_s"] != 300 || d.Evidence["bursts"] != 4 || math.Abs(d.Evidence["mean_load"]-0.28) > 1e-9 {
		t.Errorf("evidence %v, want period 300 s, 4 bursts, mean load 0.28", d.Evidence)
	}
	if !strings.Contains(d.Message, "5m0s apart") {
		t.Errorf("message %q does not give the period", d.Message)
	}
	sc, run = handBuilt(t, 4, 20, func(w, s int) float64 {
		if w == 7 {
			return 1
		}
		return 0.1
	})
	if v := Summarize(sc, []Run{run}).Variants[0]; slices.Contains(kinds(v.Diagnosis), "synchronized_burst") {
		t.Errorf("one burst diagnosed as synchronized: %v", v.Diagnosis)
	}
}

// A cache stampede: a read stream's backend reads are 100 per window except 1,000 in
// window 6, where node 1 runs at 95%, and no miss ever joined another (no single-flight):
// cache_stampede. With joined reads (single-flight on), or the node at 50%, none.
func TestDiagnoseCacheStampede(t *testing.T) {
	build := func(joined int64, nodeLoad float64) VariantSummary {
		sc, run := handBuilt(t, 4, 10, func(w, s int) float64 {
			if w == 6 && s == 1 {
				return nodeLoad
			}
			return 0.2
		})
		st := &run.Result.Streams[1]
		st.Op = sim.Read
		cache := metrics.CacheCounts{Hits: 50_000, Joined: joined, BackendReads: 1900, Backend: make([]int64, len(st.Win))}
		for w := range cache.Backend {
			cache.Backend[w] = 100
		}
		cache.Backend[6] = 1000
		run.Result.Reports = append(run.Result.Reports, &metrics.CacheResult{Streams: []metrics.CacheCounts{{}, cache}})
		return Summarize(sc, []Run{run}).Variants[0]
	}
	v := build(0, 0.95)
	if !slices.Contains(kinds(v.Diagnosis), "cache_stampede") {
		t.Fatalf("diagnosis %v, want cache_stampede", kinds(v.Diagnosis))
	}
	for _, d := range v.Diagnosis {
		if d.Kind == "cache_stampede" && (d.Evidence["peak_backend_reads"] != 1000 || d.Evidence["node"] != 1) {
			t.Errorf("evidence %v, want 1,000 backend reads at the peak on node 1", d.Evidence)
		}
	}
	if v := build(5, 0.95); slices.Contains(kinds(v.Diagnosis), "cache_stampede") {
		t.Errorf("stampede diagnosed although misses joined (single-flight)")
	}
	if v := build(0, 0.5); slices.Contains(kinds(v.Diagnosis), "cache_stampede") {
		t.Errorf("stampede diagnosed although no node was overloaded")
	}
}

// A key is named only above fairFactor (2) times its fair share, 1/N for the N keys its
// stream draws. The hand-built put stream is given a user_id of 10 values (fair share
// 10%): user 7 on hot shard 2 with 15% of the writes is within twice that and not named
// (the shard is then hot_shard_many_keys, for too few keys); with 25% it is a hot key.
// With 1,000 values (fair share 0.1%) 15% is a hot key, as before.
func TestDiagnoseHotKeyAboveFairShare(t *testing.T) {
	for _, c := range []struct {
		values int
		count  int64
		want   string
	}{{10, 15_000, "hot_shard_many_keys"}, {10, 25_000, "hot_key"}, {1000, 15_000, "hot_key"}} {
		ssc, r := handBuiltSpec(t, 8, 4, func(w, s int) float64 {
			if s == 2 {
				return 0.95
			}
			return 0.2
		})
		rs := ssc.Variants[0].Spec
		f := slices.Index(rs.FieldNames, "user_id")
		rs.Streams[0].Fields[f] = scenario.FieldSpec{Gen: "uniform", N: uint64(c.values), Cardinality: uint64(c.values)}
		sc, run := describeScenario(ssc), Run{Variant: describeVariant(ssc.Variants[0]), Result: r}
		put := &run.Result.Streams[0]
		put.Offered = 100_000
		put.HotKeys = []sim.KeyCount{{Values: []uint64{7}, Count: c.count, Shard: 2}}
		v := Summarize(sc, []Run{run}).Variants[0]
		if got := kinds(v.Diagnosis); len(got) != 1 || got[0] != c.want {
			t.Errorf("%d values, user 7 with %d of 100,000 writes: diagnosis %v, want %s", c.values, c.count, got, c.want)
			continue
		}
		if d := v.Diagnosis[0]; c.want == "hot_key" && d.Evidence["keys_drawn"] != float64(c.values) {
			t.Errorf("%d values: evidence %v, want keys_drawn %d", c.values, d.Evidence, c.values)
		}
	}
}
