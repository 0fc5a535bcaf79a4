package metrics

import (
	"strconv"
	"testing"
)

// TestRatioOfIdleLoads: a ratio to a median of 0 is 1 when every load is 0 (all are
// equal) and undefined (nil) when the numerator is positive; otherwise it is the quotient
// (docs/detection.md, "Skew statistics").
func TestRatioOfIdleLoads(t *testing.T) {
	show := func(p *float64) string {
		if p == nil {
			return "nil"
		}
		return strconv.FormatFloat(*p, 'g', -1, 64)
	}
	for _, tc := range []struct {
		a, b float64
		want float64 // -1: nil
	}{
		{0, 0, 1},
		{3, 0, -1},
		{0.001, 0, -1}, // any positive numerator
		{3, 2, 1.5},
		{0, 2, 0},
	} {
		got := ratioOrNil(tc.a, tc.b)
		switch {
		case tc.want < 0 && got != nil:
			t.Errorf("ratioOrNil(%v, %v) = %v, want nil", tc.a, tc.b, *got)
		case tc.want >= 0 && (got == nil || *got != tc.want):
			t.Errorf("ratioOrNil(%v, %v) = %s, want %v", tc.a, tc.b, show(got), tc.want)
		}
	}

	// The same through SpreadOf: every load idle gives ratios of 1, one working shard
	// over an idle median none.
	if sp := SpreadOf([]float64{0, 0, 0}); sp.MaxOverMedian == nil || *sp.MaxOverMedian != 1 || sp.P95OverP50 == nil || *sp.P95OverP50 != 1 {
		t.Errorf("idle loads: ratios %s and %s, want 1", show(sp.MaxOverMedian), show(sp.P95OverP50))
	}
	if sp := SpreadOf([]float64{0, 0, 0.5}); sp.MaxOverMedian != nil {
		t.Errorf("one working shard over an idle median: max/median %s, want nil", show(sp.MaxOverMedian))
	}
}
