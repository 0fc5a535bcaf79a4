package report

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/scenarios"
	"github.com/shardsim/shardsim/sim"
)

// Issue 15 (c): quickstart's scan (seed 7, 5 minutes, one variant) printed p999 156.159 ms
// above its max 156.096 ms: an HdrHistogram quantile is the upper end of its bucket. The
// summary caps every quantile at the exact max.
func TestQuickstartQuantilesNotAboveMax(t *testing.T) {
	sc, err := scenarios.Load("quickstart", scenarios.Options{Variants: []string{"zipf user_id"}})
	if err != nil {
		t.Fatal(err)
	}
	r := sim.Run(sc.Variants[0].Model())
	scan := &r.Streams[2]
	if scan.Name != "report_all_users" || scan.QuantileMillis(0.999) <= scan.LatencyMax.Millis() {
		t.Fatalf("%s: raw p999 %v ms, max %v ms; the test needs a raw quantile above the max", scan.Name, scan.QuantileMillis(0.999), scan.LatencyMax.Millis())
	}
	sum := Summarize(describeScenario(sc), []Run{{Variant: describeVariant(sc.Variants[0]), Result: r}})
	for _, st := range sum.Variants[0].Streams {
		l := st.Latency
		for name, q := range map[string]*float64{"mean": l.Mean, "p50": l.P50, "p95": l.P95, "p99": l.P99, "p999": l.P999} {
			if q == nil || l.Max == nil || *q > *l.Max {
				t.Errorf("%s: %s %v above max %v", st.Name, name, q, l.Max)
			}
		}
	}
	if l := sum.Variants[0].Streams[2].Latency; *l.P999 != *l.Max {
		t.Errorf("report_all_users: p999 %v, want the max %v", *l.P999, *l.Max)
	}
}

// A stream that completed nothing (testdata/timeouts.toml: every request times out) has
// null latencies in summary.json, "-" in the tables and empty cells in the CSV, never 0;
// its errors count every cause.
//
// Its charts draw: no latency distribution chart (there is nothing to draw; the chart's
// error used to fail the whole run), the others as for any stream.
func TestEmptyStreamLatencyIsAbsent(t *testing.T) {
	sc, runs := runAll(t, "../testdata/timeouts.toml")
	plan := PlanCharts("png", sc, runs)
	dir := t.TempDir()
	if err := plan.Render(dir, 1); err != nil {
		t.Errorf("charts: %v", err)
	}
	var names []string
	for _, c := range plan.Charts {
		names = append(names, c.File)
	}
	if !slices.Contains(names, "p99-get.png") || slices.Contains(names, "cdf-get.png") {
		t.Errorf("charts %v: want p99-get.png and no cdf-get.png", names)
	}
	sum := Summarize(sc, runs)
	st := sum.Variants[0].Streams[0]
	if st.Completed != 0 || st.TimedOut != st.Offered || st.Failed != st.Offered || st.ErrorRate != 1 {
		t.Fatalf("%d of %d completed, %d timed out, %d failed, error rate %v; want every request timed out",
			st.Completed, st.Offered, st.TimedOut, st.Failed, st.ErrorRate)
	}
	var js bytes.Buffer
	if err := JSON(&js, sum); err != nil {
		t.Fatal(err)
	}
	var raw struct {
		Variants []struct {
			Streams []struct {
				Latency map[string]any `json:"latency_ms"`
			} `json:"streams"`
		} `json:"variants"`
	}
	if err := json.Unmarshal(js.Bytes(), &raw); err != nil {
		t.Fatal(err)
	}
	l := raw.Variants[0].Streams[0].Latency
	for _, k := range []string{"mean", "p50", "p95", "p99", "p999", "max"} {
		if v, ok := l[k]; !ok || v != nil {
			t.Errorf("summary.json latency_ms.%s = %v (present %v), want null", k, v, ok)
		}
	}
	var text bytes.Buffer
	Text(&text, sum)
	found := false
	for _, line := range strings.Split(text.String(), "\n") {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "get" && f[1] == "read" {
			found = true
			f := strings.Fields(line)
			// With failures the table gains an error rate column before the latencies.
			if len(f) != 11 || f[3] != "0" || f[4] != f[2] || f[5] != "100.0%" || f[6] != "-" || f[7] != "-" || f[8] != "-" || f[9] != "-" {
				t.Errorf("stream line %q: want 0 completed, every request an error (100.0%%) and - for each latency", line)
			}
		}
	}
	if !found {
		t.Errorf("no line for the stream in:\n%s", text.String())
	}
	var csvOut bytes.Buffer
	if err := CSV(&csvOut, sum); err != nil {
		t.Fatal(err)
	}
	if rows := strings.Split(strings.TrimSpace(csvOut.String()), "\n"); len(rows) != 2 || !strings.Contains(rows[1], ",,,,,,") {
		t.Errorf("CSV %q: want empty latency cells", csvOut.String())
	}
}
