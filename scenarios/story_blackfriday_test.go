package scenarios_test

import (
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
	for _, v := range sc.Variants[:3] { // before, after, fixed; the stop-gap is checked by explain below
		wg.Add(1)
		go func() {
			defer wg.Done()
			r := report.Run{Variant: v, Result: sim.Run(v.Model())}
			mu.Lock()
			byName[strings.SplitN(v.Name, ":", 2)[0]] = r
			mu.Unlock()
		}()
	}
	wg.Wait()
	sum := report.Summarize(sc, []report.Run{byName["before"], byName["after"], byName["fixed"]})
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
	if p99 := fixed.Streams[0].Latency.P99; p99 >= 50 {
		t.Errorf("fixed: create_order p99 %.1f ms, want under 50 ms", p99)
	}
	if len(fixed.Alerts) != 0 {
		t.Errorf("fixed: alerts %+v, want none", fixed.Alerts)
	}
	if p := fixed.Streams[2].Fanout.Partitions; p < 999 || p > 1000 {
		t.Errorf("fixed: the dashboard visits %.1f partitions, want 5 x 25 x 8 = 1000", p)
	}

	// The stop-gap's bigger node has the headroom: explain predicts it under 35% at peak.
	ex := sc.Variants[3].Explain()
	if l := ex.Shards[11].Peak; l > 0.35 {
		t.Errorf("stop-gap: shard 11 predicted at %.3f of 16 cores at peak", l)
	}
}
