package metrics

import (
	"strings"
	"testing"
)

// TestAssessWithinCeiling: the ceiling judges the busiest node's load in its busiest
// window (Node.Peak), averaged over the runs. Runs that meet their SLO with node 2 at 90%
// at peak fail a ceiling of 85% and bind as the ceiling, naming the node and its load;
// they meet a ceiling of 0.95, and 0 or 1 are none. Where an SLO fails too, the SLO binds.
func TestAssessWithinCeiling(t *testing.T) {
	slo, err := ParseSLO("s:p99<50ms")
	if err != nil {
		t.Fatal(err)
	}
	run := func(p99, peak float64) *Run {
		return &Run{Streams: []Stream{{Name: "s", Offered: 100, Completed: 100, Latency: Latency{P99: &p99}}},
			Nodes: []Node{{ID: 0, Peak: 0.4, Utilization: 0.3}, {ID: 1, Peak: 0.5}, {ID: 2, Peak: peak, Utilization: 0.8}}}
	}
	runs := []*Run{run(10, 0.88), run(12, 0.92)}
	if n, p := BusiestAtPeak(runs[0]); n != 2 || p != 0.88 {
		t.Errorf("busiest at peak: node %d at %v, want node 2 at 0.88", n, p)
	}
	a := AssessWithin([]SLO{slo}, 0.001, 0.85, runs)
	if a.OK || a.Binding != Ceiling || !strings.Contains(a.Reason, "node 2 at 90.0% of its cores at peak, over the ceiling of 85%") {
		t.Errorf("ceiling 0.85: ok %v, binding %q (%s); want the ceiling binding at node 2, 90.0%%", a.OK, a.Binding, a.Reason)
	}
	for _, c := range []float64{0.95, 0, 1} {
		if a := AssessWithin([]SLO{slo}, 0.001, c, runs); !a.OK {
			t.Errorf("ceiling %v: fails (%s), want it met or none", c, a.Reason)
		}
	}
	slow := []*Run{run(80, 0.9)}
	if a := AssessWithin([]SLO{slo}, 0.001, 0.85, slow); a.OK || a.Binding != "s:p99<50ms" {
		t.Errorf("an SLO failing over the ceiling: binding %q, want the SLO", a.Binding)
	}
}
