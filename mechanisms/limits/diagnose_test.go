package limits

import (
	"slices"
	"testing"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/sim"
)

// TestThrottledAlert: throttled is registered (its place among the others is scenarios'
// TestDiagnosisOrder's) and fires, cluster-wide, in a window with throttled requests; a
// window without one does not.
func TestThrottledAlert(t *testing.T) {
	if kinds := diagnose.AlertKinds(); !slices.Contains(kinds, "throttled") {
		t.Errorf("stream alerts %q, want throttled registered", kinds)
	}
	st := &sim.StreamResult{Name: "put", Win: make([]sim.WindowLatency, 2)}
	st.Win[1].Failed[Throttled] = 1
	if _, _, ok := throttled(nil, st, 0); ok {
		t.Error("window 0, nothing throttled: fired")
	}
	if msg, node, ok := throttled(nil, st, 1); !ok || node != -1 || msg != "put: 1 request throttled in the window (a partition's throughput limit)" {
		t.Errorf("window 1: %q on node %d (%v), want 1 request, cluster-wide", msg, node, ok)
	}
}
