package report

import (
	"fmt"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// The wording a new user found misleading, case by case.
func TestWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{metrics.Plural(1, "request"), "1 request"},
		{metrics.Plural(8195, "request"), "8,195 requests"},
		{metrics.Plural(0, "request"), "0 requests"},
		// A fan-out that is always 12 is a count; a varying one keeps its decimal.
		{fmtFanout(Fanout{Mean: 12, Max: 12, Partitions: 12}), "12"},
		{fmtFanout(Fanout{Mean: 7.4, Max: 12, Partitions: 7.4}), "7.4 max 12"},
		{fmtFanout(Fanout{Mean: 12, Max: 12, Partitions: 125}), "12 (125 parts)"},
		{fmtFanout(Fanout{Mean: 12, Max: 12, Partitions: 7.5}), "12 (7.5 parts)"},
		{fmtFanout(Fanout{Mean: 1, Max: 1, Partitions: 1}), "1"},
		// No ratio to an idle median.
		{fmtRatio(nil), "n/a (the median shard is idle)"},
		// Estimated distinct counts: exact when small, rounded and never above the samples.
		{metrics.About(1406, 4716), "1,406"},
		{metrics.About(12448, 12528), "about 12,400"},
		{metrics.About(1302540, 1282062), "about 1,280,000"},
		{metrics.About(5, 100), "5"},
		// A failed share never prints as none, nor as all of them.
		{units.ShareOf(6544, 93_304_229, 1), "<0.1%"},
		{units.ShareOf(0, 100, 1), "0.0%"},
		{units.ShareOf(301_687, 819_536, 1), "36.8%"},
		{units.ShareOf(999_999, 1_000_000, 1), ">99.9%"},
		{units.ShareOf(5, 5, 1), "100.0%"},
		{failedWords(301_687, 819_536), " (36.8% failed)"},
		{failedWords(0, 819_536), ""},
		// One way to write a run's span: as the flags write it.
		{units.Seconds(10800, units.Flag), "3h"},
		{units.Seconds(300, units.Flag), "5m"},
		{units.Seconds(45, units.Flag), "45s"},
		// A run's covered time as a duration.
		{units.Seconds(3253.621541, units.Elapsed), "54m13.6s"},
		{units.Seconds(12.5, units.Elapsed), "12.5s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	v := &VariantSummary{}
	if l := spreadLine(v, true); !strings.Contains(l, "Gini (0: load spread evenly, 1: all of it on one)") {
		t.Errorf("the first spread line does not say what Gini means: %s", l)
	}
	if l := spreadLine(v, false); strings.Contains(l, "(0:") || strings.Contains(l, "∞") {
		t.Errorf("a later spread line: %s", l)
	}
}

// TestTextAlertsCapped: the text output prints a variant's first maxTextAlerts alerts and
// says how many it left out; a 200-node run with 1 s windows printed 748 alert lines.
func TestTextAlertsCapped(t *testing.T) {
	v := VariantSummary{Name: "v"}
	for i := range maxTextAlerts + 5 {
		v.Alerts = append(v.Alerts, Alert{At: "00:01", AtS: 60, Kind: "node_cpu", Subject: fmt.Sprintf("node %d", i), Message: fmt.Sprintf("node %d at 95.0%% of its cores", i)})
	}
	var b strings.Builder
	Text(&b, &Summary{Variants: []VariantSummary{v}})
	out := b.String()
	if n := strings.Count(out, " node_cpu "); n != maxTextAlerts {
		t.Errorf("%d alert lines, want %d:\n%s", n, maxTextAlerts, out)
	}
	if !strings.Contains(out, "... 5 alerts left out here (report.md and summary.json list them)") || strings.Contains(out, "node 44 at") {
		t.Errorf("the cut is not said, or the last alerts were printed:\n%s", out)
	}
}
