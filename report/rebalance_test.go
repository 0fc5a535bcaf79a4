package report

import (
	"strings"
	"testing"
)

// TestRebalanceWording: the rebalance line says when the nodes joined, how many moves
// were done, and says so when they were not all done or the run never reached it.
func TestRebalanceWording(t *testing.T) {
	full := RebalanceSummary{Start: "09:01", Done: "09:01:10", Moves: 4, MovesDone: 4, RowsCopied: 999524, CopyCPUS: 14.993, Rate: 100000}
	part := full
	part.Done, part.MovesDone = "", 2
	for _, c := range []struct {
		b    RebalanceSummary
		want string
	}{
		{full, "nodes joined 09:01; 4 of 4 shard moves done (done 09:01:10), 999,524 rows copied at 100,000 rows/s, 14.993 core-s of CPU"},
		{part, "2 of 4 shard moves done (not all done by the end of the run)"},
		{RebalanceSummary{}, "not started: the run ended first"},
	} {
		if got := rebalanceLine(&c.b); !strings.Contains(got, c.want) {
			t.Errorf("got %q, want it to contain %q", got, c.want)
		}
	}
	var b strings.Builder
	rebalanceText(&b, &VariantSummary{})
	if b.Len() != 0 {
		t.Errorf("a variant without a rebalance writes %q", b.String())
	}
}
