package report

import (
	"strings"
	"testing"
)

// TestFoldKeepsActionsAndClearings: black-friday's incident variant folded its scale-up,
// its cap, the cap's lifting and both clearings under "5 more alerts and events" and
// showed near-duplicate latency alerts instead. Sibling stream alerts of one minute are
// merged; actions and clearings stay in view however long the timeline.
func TestFoldKeepsActionsAndClearings(t *testing.T) {
	v := &VariantSummary{}
	alert := func(at string, atS float64, kind, msg, det string) {
		v.Alerts = append(v.Alerts, Alert{At: at, AtS: atS, Kind: kind, Message: msg, Detection: det})
	}
	alert("08:04", 484, "hot_shard", "shard 11 hot", "fired 1m after")
	alert("08:04", 484, "node_cpu", "node 11 hot", "fired 1m after")
	for _, s := range []string{"create_order", "order_status"} {
		alert("08:19", 1140, "latency", s+" p99 crossed 200ms", "fired 16m after")
		alert("08:19", 1140, "latency", s+" p99 crossed 500ms", "fired 16m after")
	}
	for i, s := range []string{"create_order", "order_status", "dashboard_24h"} {
		alert("08:20", 1200, "latency", s+" p99 crossed 1.5s", "fired "+strings.Repeat("1", i+1)+"m after")
	}
	for m := 21; m < 30; m++ { // a run of later alerts, each its own kind or minute
		alert("08:"+itoa(m), float64(60*m), "latency", "dashboard_24h p99 crossed 5s", "")
	}
	alert("08:31", 1860, "hot_shard_cleared", "shard 11 back to 24.1%", "cleared")
	alert("08:31", 1860, "node_cpu_cleared", "node 11 back to 24.1%", "cleared")
	v.Events = []EventSummary{
		{At: "08:20", AtS: 1200, Kind: "action", Message: "create_order: limit 11,000/s"},
		{At: "08:30", AtS: 1800, Kind: "action", Message: "node 11: 4 → 16 cores"},
		{At: "08:31", AtS: 1860, Kind: "action", Message: "create_order: limit 40,000/s"},
		{At: "08:40", AtS: 2400, Kind: "action", Message: "create_order: limit lifted"},
	}
	tl := timeline(v) // 2 + 4 + 3 + 9 + 2 alerts and 4 actions: 24
	merged := mergeSiblings(tl)
	// 08:19's four latency alerts are one line, their common detection said once; 08:20's
	// three differ in detection, so each keeps its own.
	if len(merged) != len(tl)-3-2 {
		t.Fatalf("%d entries merged into %d, want %d", len(tl), len(merged), len(tl)-5)
	}
	for _, e := range merged {
		switch {
		case e.at == "08:19" && e.kind == "latency":
			if strings.Count(e.message, "crossed") != 4 || e.detection != "fired 16m after" || strings.Contains(e.message, "(fired") {
				t.Errorf("08:19 merged: %q (%q)", e.message, e.detection)
			}
		case e.at == "08:20" && e.kind == "latency":
			if strings.Count(e.message, "(fired") != 3 || e.detection != "" {
				t.Errorf("08:20 merged: %q (%q)", e.message, e.detection)
			}
		}
	}
	shown, folded := foldTimeline(tl, 12)
	if len(shown) != 12 || len(shown)+len(folded) != len(merged) {
		t.Fatalf("%d shown and %d folded of %d, want 12 shown", len(shown), len(folded), len(merged))
	}
	kinds := map[string]int{}
	for _, e := range shown {
		kinds[e.kind]++
	}
	if kinds["action"] != 4 || kinds["hot_shard_cleared"] != 1 || kinds["node_cpu_cleared"] != 1 {
		t.Errorf("shown %v: want every action and both clearings", kinds)
	}
	for _, e := range folded {
		if kept(e) {
			t.Errorf("folded %s %s", e.at, e.kind)
		}
	}
	for i := 1; i < len(shown); i++ {
		if shown[i].atS < shown[i-1].atS {
			t.Errorf("shown out of time order at %d: %s after %s", i, shown[i].at, shown[i-1].at)
		}
	}
	// A timeline within the limit is shown whole, unmerged.
	if s, f := foldTimeline(tl, len(tl)); len(s) != len(tl) || len(f) != 0 {
		t.Errorf("a timeline within the limit: %d shown, %d folded", len(s), len(f))
	}
}

func itoa(n int) string { return string(rune('0'+n/10)) + string(rune('0'+n%10)) }

// TestGlanceNamesEachShard: the variants' table gave "hottest shard 5" beside "peak shard
// load 39.4%", which was shard 2's; each load now has its shard, and a p99 that leaves out
// failed requests says how many failed.
func TestGlanceNamesEachShard(t *testing.T) {
	p99 := 457.2
	sum := &Summary{Variants: []VariantSummary{{Name: "after",
		Streams: []StreamSummary{{Name: "payment_callback", Offered: 819_536, Failed: 301_687, Latency: Latency{P99: &p99}}},
		Skew:    Skew{HottestShard: 5, HottestLoad: 0.251, PeakWindow: "07:59", PeakHottestShard: 2, PeakHottestLoad: 0.394}}}}
	g := glanceTable(sum)
	row := map[string]string{}
	for i, h := range g.head {
		row[h] = g.rows[0][i]
	}
	for h, want := range map[string]string{
		"hottest shard's load over the run": "25.1% (shard 5)", "hottest shard's load in the busiest window": "39.4% (shard 2, 07:59)",
		"payment_callback p99 ms": "457.2 (36.8% failed)", "error rate": "36.8%",
	} {
		if row[h] != want {
			t.Errorf("%q: %q, want %q (row %v)", h, row[h], want, row)
		}
	}
}
