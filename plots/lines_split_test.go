package plots

import (
	"testing"

	"gonum.org/v1/plot/plotter"
)

// TestSplitFailing: a line through five points of which the last two are past the error
// limit is drawn solid through the first three and dashed from the third on (into and
// between the failing points); with no failing point it is one solid piece.
func TestSplitFailing(t *testing.T) {
	seg := plotter.XYs{{X: 1, Y: 1}, {X: 2, Y: 2}, {X: 3, Y: 3}, {X: 4, Y: 9}, {X: 5, Y: 4}}
	xs := []float64{1, 2, 3, 4, 5}
	got := splitFailing(seg, xs, []bool{false, false, false, true, true})
	if len(got) != 2 || got[0].failing || len(got[0].xys) != 3 || !got[1].failing || len(got[1].xys) != 3 || got[1].xys[0].X != 3 {
		t.Errorf("pieces %+v, want solid 1-3 and dashed 3-5", got)
	}
	if got := splitFailing(seg, xs, nil); len(got) != 1 || got[0].failing || len(got[0].xys) != 5 {
		t.Errorf("pieces %+v, want one solid piece", got)
	}
}
