package capacity

import (
	"math"
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/replicas"
)

// TestSettleNotes: an answer whose runs measured fewer than settleRuns relaxation times of
// the hottest node's queue gets a note (orders at 2 nodes: 99.2% busy, about 9 s to
// settle, 15 s measured), one that measured enough does not, and a node at 100% is said
// never to settle.
func TestSettleNotes(t *testing.T) {
	row := func(variant string, settle, measured float64) Answer {
		return Answer{Variant: variant, At: &Probe{Multiple: 1.078, Settle: settle, Measured: measured, NodeLoad: replicas.Estimate{Mean: 0.992}}}
	}
	cr := &Report{Rows: []Answer{row("short", 9, 15), row("long", 1.4, 15), row("over", math.Inf(1), 15)}}
	notes := cr.settleNotes()
	if len(notes) != 1 || !strings.Contains(notes[0], "short (99.2% busy, about 9.0 s), over (99.2% busy, never settles);") ||
		!strings.Contains(notes[0], "measured 15 s after their warmup, fewer than 10") || strings.Contains(notes[0], "long (") {
		t.Errorf("notes %q: want one line naming short (9.0 s against 15 s) and over (never settles), not long", notes)
	}
	if notes := (&Report{Rows: []Answer{row("long", 1.4, 15)}}).settleNotes(); notes != nil {
		t.Errorf("an answer measured over 10 relaxation times got %q", notes)
	}
}
