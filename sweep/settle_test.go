package sweep

import (
	"math"
	"strings"
	"testing"
)

// TestSettleNotes: an answer whose runs measured fewer than settleRuns relaxation times of
// the hottest node's queue gets a note (orders at 2 nodes: 99.2% busy, about 9 s to
// settle, 15 s measured), one that measured enough does not, and a node at 100% is said
// never to settle.
func TestSettleNotes(t *testing.T) {
	row := func(variant string, settle, measured float64) Capacity {
		return Capacity{Variant: variant, At: &Probe{Multiple: 1.078, Settle: settle, Measured: measured, NodeLoad: Estimate{Mean: 0.992}}}
	}
	cr := &CapacityReport{Rows: []Capacity{row("short", 9, 15), row("long", 1.4, 15), row("over", math.Inf(1), 15)}}
	notes := cr.settleNotes()
	if len(notes) != 2 || !strings.Contains(notes[0], "for short ") || !strings.Contains(notes[0], "about 9.0 s") ||
		!strings.Contains(notes[0], "15 s after their warmup") || !strings.Contains(notes[1], "for over ") || !strings.Contains(notes[1], "never settles") {
		t.Errorf("notes %q: want one for short (9.0 s against 15 s) and one for over (never settles)", notes)
	}
}
