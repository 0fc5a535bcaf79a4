package scenarios_test

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/shardsim/shardsim/report"
	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// TestBlackFridayStory runs the built-in black-friday scenario (seed 42, three simulated
// hours, about 93 million requests per variant) and checks that it tells its story.
func TestBlackFridayStory(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates about 280 million requests")
	}
	sc, err := scenarios.Load("black-friday", scenarios.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if scenarios.Default != "black-friday" {
		t.Errorf("the default scenario is %q, want black-friday", scenarios.Default)
	}
	byName := map[string]report.Run{}
	var mu sync.Mutex
	var wg sync.WaitGroup
	// before, after, fixed and the operator's stop-gap; the bigger node is checked by
	// explain below.
	for _, v := range []*scenarios.Variant{sc.Variants[0], sc.Variants[1], sc.Variants[2], sc.Variants[4]} {
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := report.Run{Variant: &v.Variant, Result: sim.Run(v.Model())}
			mu.Lock()
			byName[strings.SplitN(v.Name, ":", 2)[0]] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	sum := report.Summarize(&sc.Scenario, []report.Run{byName["before"], byName["after"], byName["fixed"]})
	before, after, fixed := sum.Variants[0], sum.Variants[1], sum.Variants[2]

	// Before: one shard at (nearly) 100% in the peak window while the median shard coasts.
	if k := before.Skew; k.PeakHottestLoad < 0.95 || k.PeakMedianLoad >= 0.30 {
		t.Errorf("before: peak window hottest shard %.3f (want >= 0.95), median %.3f (want < 0.30)", k.PeakHottestLoad, k.PeakMedianLoad)
	}
	if k := before.Skew; k.PeakHottestShard != 11 {
		t.Errorf("before: the hot shard is %d, want 11 (the newest ids)", k.PeakHottestShard)
	}
	// A hot-shard alert between 08:00 and 08:30 (2 to 2.5 hours after the 06:00 start).
	hotAt := -1.0
	for _, a := range before.Alerts {
		if a.Kind == "hot_shard" && hotAt < 0 {
			hotAt = a.AtS
		}
	}
	if hotAt < 2*3600 || hotAt > 2.5*3600 {
		t.Errorf("before: first hot-shard alert at %v s after 06:00, want between 08:00 and 08:30 (alerts %+v)", hotAt, before.Alerts)
	}
	// p99 crosses 200 ms, then 500 ms, then 1.5 s, and is above 1 s at the peak.
	var crossings []string
	for _, a := range before.Alerts {
		if a.Kind == "latency" && a.Subject == "create_order" {
			crossings = append(crossings, a.Message[len("create_order p99 crossed "):strings.Index(a.Message, " (")])
		}
	}
	if strings.Join(crossings, ",") != "200ms,500ms,1.5s" {
		t.Errorf("before: create_order p99 crossed %v, want 200ms, 500ms and 1.5s in turn", crossings)
	}
	worst := 0.0
	for _, w := range byName["before"].Result.Streams[0].Win {
		worst = max(worst, w.QuantileMillis(0.99))
	}
	if worst <= 1000 {
		t.Errorf("before: create_order's worst windowed p99 is %.0f ms, want above 1 s", worst)
	}

	// After: no hot shard, but the dashboard reads 5 regions x 25 hourly buckets.
	if p := after.Streams[2].Fanout.Partitions; p < 124.9 || p > 125 {
		t.Errorf("after: the dashboard visits %.2f partitions, want 5 x 25 = 125", p)
	}
	if after.Streams[2].Fanout.Max > 12 {
		t.Errorf("after: the dashboard sends %d subrequests, want at most one per shard", after.Streams[2].Fanout.Max)
	}
	if after.Skew.PeakHottestLoad >= 0.9 {
		t.Errorf("after: a shard reaches %.3f", after.Skew.PeakHottestLoad)
	}

	// Fixed: order creation p99 under 50 ms, no alert, and the dashboard's price stated.
	if p99 := fixed.Streams[0].Latency.P99; p99 == nil || *p99 >= 50 {
		t.Errorf("fixed: create_order p99 %v ms, want under 50 ms", p99)
	}
	if len(fixed.Alerts) != 0 {
		t.Errorf("fixed: alerts %+v, want none", fixed.Alerts)
	}
	if p := fixed.Streams[2].Fanout.Partitions; p < 999 || p > 1000 {
		t.Errorf("fixed: the dashboard visits %.1f partitions, want 5 x 25 x 8 = 1000", p)
	}

	// Diagnosis: the Snowflake key is a monotonic key; the fixed designs have no hotspot.
	if !hasDiagnosis(before, "monotonic_key", "create_order") {
		t.Errorf("before: diagnosis %+v, want monotonic_key for create_order", before.Diagnosis)
	}
	for _, v := range []report.VariantSummary{after, fixed} {
		if len(v.Diagnosis) != 0 {
			t.Errorf("%s: diagnosis %+v, want none", v.Name, v.Diagnosis)
		}
	}

	blackFridayStopGap(t, byName["stop-gap during the incident"].Result, byName["before"].Result)

	// The stop-gap's bigger node has the headroom: explain predicts it under 35% at peak.
	ex := sc.Variants[3].Explain()
	if l := ex.Shards[11].Peak; l > 0.35 {
		t.Errorf("stop-gap: shard 11 predicted at %.3f of 16 cores at peak", l)
	}
}

func hasDiagnosis(v report.VariantSummary, kind, subject string) bool {
	for _, d := range v.Diagnosis {
		if d.Kind == kind && d.Subject == subject {
			return true
		}
	}
	return false
}

// blackFridayStopGap checks the operator's actions on the original design: a write cap
// with an overflow queue at 08:20, 16 cores for node 11 at 08:30, the cap raised at 08:31
// so that the overflow drains at what the bigger node serves, and lifted at 08:40.
func blackFridayStopGap(t *testing.T, r, before *sim.Result) {
	t.Helper()
	at := func(clock string) int { // window index of a clock time (06:00 start, 1m windows)
		var h, m int
		fmt.Sscanf(clock, "%d:%d", &h, &m)
		return (h-6)*60 + m
	}
	var acts []string
	for _, e := range r.Events {
		if e.Kind == sim.EventAction {
			acts = append(acts, fmt.Sprintf("%d", int(e.At/sim.Minute)))
		}
	}
	if got, want := strings.Join(acts, ","), fmt.Sprintf("%d,%d,%d,%d", at("08:20"), at("08:30"), at("08:31"), at("08:40")); got != want {
		t.Errorf("stop-gap: actions in windows %s, want %s", got, want)
	}
	// No order is lost (the original design rejects over a million, today 2.1 million).
	co, bco := &r.Streams[0], &before.Streams[0]
	if co.Rejected != 0 || co.Completed != co.Offered || bco.Rejected < 1_000_000 {
		t.Errorf("stop-gap: %d of %d orders rejected (want 0), the original design %d (want > 1,000,000)", co.Rejected, co.Offered, bco.Rejected)
	}
	// Node 11 has 4 cores before 08:30 and 16 from then on: its core time per window.
	nn := len(r.Nodes)
	if c := r.NodeCapacity[at("08:29")*nn+11]; c != 4*sim.Minute {
		t.Errorf("stop-gap: node 11's capacity at 08:29 is %v, want 4 core-minutes", c)
	}
	if c := r.NodeCapacity[at("08:31")*nn+11]; c != 16*sim.Minute {
		t.Errorf("stop-gap: node 11's capacity at 08:31 is %v, want 16 core-minutes", c)
	}
	// Orders wait while the cap holds (today up to 59 s at 08:30), and once the node is
	// bigger and the cap lifted both queues drain within 3 minutes: p99 back under 10 ms.
	worst := 0.0
	for w := at("08:20"); w <= at("08:30"); w++ {
		worst = max(worst, co.Win[w].QuantileMillis(0.99))
	}
	if worst < 10_000 {
		t.Errorf("stop-gap: worst windowed p99 under the cap %.0f ms, want the overflow queue's wait above 10 s", worst)
	}
	for w := at("08:34"); w < at("09:00"); w++ {
		if p := co.Win[w].QuantileMillis(0.99); p > 10 {
			t.Errorf("stop-gap: create_order p99 %.1f ms in window %d, want under 10 ms once the queues drained", p, w)
			break
		}
	}
}
