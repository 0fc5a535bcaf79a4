package sweep

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
)

// The reproduction: salt-buckets at 2 salt buckets, three replications (seeds 1, 2,
// 3): one meets ingest p99 < 20 ms and two run away. The row is split, in the table and the
// chart, and its error bar is drawn on the log axis (positive bounds); at 8 buckets all
// three meet it. The split's logic on constructed runs is TestSplitFlagConstructed's, in
// -short too; this is the real scenario's, 12 runs of salt-buckets (make test-long).
func TestSweepSplit(t *testing.T) {
	if testing.Short() {
		t.Skip("12 runs of salt-buckets")
	}
	slo, err := ParseSLO("ingest:p99<20ms")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Scenario: "salt-buckets", Axes: []Axis{{Key: "keyspace.salt", Values: []string{"2", "8"}}}, Replications: 3, Parallel: 2,
		SLOs: []SLO{slo}, MaxErrors: 0.001}
	rows, err := Run(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if r := &rows[0]; !r.Split() || r.Passes != 1 || r.Assessment.OK {
		t.Errorf("salt 2: split %v, %d of 3 pass, ok %v; want split, 1 passing, the mean failing", r.Split(), r.Passes, r.Assessment.OK)
	}
	if r := &rows[1]; r.Split() || r.Passes != 3 || !r.Assessment.OK {
		t.Errorf("salt 8: split %v, %d of 3 pass, ok %v; want all three passing", r.Split(), r.Passes, r.Assessment.OK)
	}
	sw := &Sweep{Scenario: "salt-buckets", Config: cfg, Rows: rows}
	l := sw.chart(0, "p99")
	s := l.Series[0]
	if !s.Flag[0] || s.Flag[1] || l.SLO != 20 {
		t.Errorf("chart flags %v, SLO %v; want the first point flagged and the SLO at 20", s.Flag, l.SLO)
	}
	for i := range s.Y {
		if !(s.Lo[i] > 0 && s.Hi[i] >= s.Y[i]) {
			t.Errorf("point %d: error bar [%v, %v] around %v cannot be drawn on a log axis", i, s.Lo[i], s.Hi[i], s.Y[i])
		}
	}
	tab := sw.Table()
	if got := tab.Rows[0][len(tab.Rows[0])-1]; got != "SPLIT 1/3" {
		t.Errorf("salt 2's SLO cell %q, want SPLIT 1/3", got)
	}
}

// The split flag on constructed replications: three runs of one stream whose p99 is 10,
// 400 and 12 ms against p99 < 50 ms. Two meet the SLO alone, the mean (140.67 ms) does not:
// the row is split, and so is one whose replications saturated in part (without SLOs);
// rows whose replications agree are not.
func TestSplitFlagConstructed(t *testing.T) {
	slo, err := ParseSLO("s:p99<50ms")
	if err != nil {
		t.Fatal(err)
	}
	run := func(p99 float64, saturated bool) *metrics.Run {
		return &metrics.Run{Saturated: saturated, Streams: []metrics.Stream{{Name: "s", Offered: 100, Completed: 100,
			Latency: metrics.Latency{P99: &p99}}}, Nodes: []metrics.Node{{Peak: 0.5}}}
	}
	cases := []struct {
		name   string
		runs   []*metrics.Run
		slos   []SLO
		split  bool
		passes int
	}{
		{"two of three meet the SLO", []*metrics.Run{run(10, false), run(400, false), run(12, false)}, []SLO{slo}, true, 2},
		{"all three meet it", []*metrics.Run{run(10, false), run(11, false), run(12, false)}, []SLO{slo}, false, 3},
		{"none does", []*metrics.Run{run(100, false), run(110, false), run(120, false)}, []SLO{slo}, false, 0},
		{"one of three saturated, no SLO", []*metrics.Run{run(10, false), run(10, true), run(10, false)}, nil, true, 0},
	}
	for _, c := range cases {
		row := aggregate(Row{Seeds: []uint64{1, 2, 3}}, c.runs)
		judge(&row, c.runs, c.slos, 0.001, 0)
		if row.Split() != c.split || row.Passes != c.passes {
			t.Errorf("%s: split %v with %d passing, want %v with %d", c.name, row.Split(), row.Passes, c.split, c.passes)
		}
	}
	// The mean fails where two of three pass: the mean of 10, 400 and 12 is over 50.
	row := aggregate(Row{Seeds: []uint64{1, 2, 3}}, cases[0].runs)
	judge(&row, cases[0].runs, []SLO{slo}, 0.001, 0)
	if row.Assessment.OK || !strings.Contains(verdictCell(&row), "SPLIT 2/3") {
		t.Errorf("mean ok %v, cell %q; want the mean failing and SPLIT 2/3", row.Assessment.OK, verdictCell(&row))
	}
}

// TestSplitUnderCeiling: the salt-buckets row at 2 buckets under the 85% ceiling: one seed
// meets the SLO with its busiest node at 98% at peak, two run away. No seed passes, yet the
// seeds disagree on the SLO: the row is split (its p99 has no interval, which would span
// ten orders of magnitude) and its cell says the ceiling fails the seed that meets the SLO.
func TestSplitUnderCeiling(t *testing.T) {
	slo, err := ParseSLO("s:p99<20ms")
	if err != nil {
		t.Fatal(err)
	}
	run := func(p99, peak float64) *metrics.Run {
		return &metrics.Run{Streams: []metrics.Stream{{Name: "s", Offered: 100, Completed: 100,
			Latency: metrics.Latency{P99: &p99}}}, Nodes: []metrics.Node{{Peak: peak}}}
	}
	runs := []*metrics.Run{run(14.8, 0.98), run(106000, 1), run(106400, 1)}
	row := aggregate(Row{Seeds: []uint64{5, 6, 7}}, runs)
	judge(&row, runs, []SLO{slo}, 0.001, 0.85)
	if !row.Split() || row.Passes != 0 || verdictCell(&row) != "SPLIT 1/3: ceiling" {
		t.Errorf("split %v, %d passing, cell %q; want a split row, none passing, SPLIT 1/3: ceiling", row.Split(), row.Passes, verdictCell(&row))
	}
	if meets(&row) {
		t.Error("a split row meets the SLOs")
	}
}
