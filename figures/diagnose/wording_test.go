package diagnose

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// The wording of the findings, case by case (from report's TestWording).
func TestWording(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		// An alert's ratio to a median that prints as 0.0% (it said 10669.2x) is left out.
		{ratioWords(0.9, 0.0000844), ""},
		{ratioWords(0.9, 0.3), " (3.0x)"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
	if p := pctAtLeast(0); p != "0.1%" {
		t.Errorf("no partition holds a share: %q, want the 0.1%% floor the sketch can vouch for", p)
	}
}

// TestCopyingIn: a shard's busiest window that a rebalance's move of it (or a migration's
// backfill) overlaps is said to hold the copy's work, so that the diagnosis does not
// blame the key for it (a review found "reshard or salt the key" for a shard whose 77.6%
// was mostly its own move).
func TestCopyingIn(t *testing.T) {
	r := &sim.Result{Window: sim.Minute, Windows: 4, Reports: []any{&metrics.RebalanceResult{Moves: []metrics.ShardCopy{
		{Shard: 2, From: 0, To: 2, Start: 70 * sim.Second, Done: 100 * sim.Second},
		{Shard: 3, From: 1, To: 3, Start: 100 * sim.Second, Done: -1},
	}}}}
	for _, c := range []struct {
		s, w int
		want string
	}{
		{2, 0, ""}, {2, 1, "moved from node 0 to node 2"}, {2, 2, ""},
		{3, 1, "moved from node 1 to node 3"}, {3, 3, "moved from node 1 to node 3"}, {1, 1, ""},
	} {
		if got := copyingIn(r, c.s, c.w); c.want == "" && got != "" || !strings.Contains(got, c.want) {
			t.Errorf("shard %d, window %d: %q, want %q", c.s, c.w, got, c.want)
		}
	}
	m := &sim.Result{Window: sim.Minute, Windows: 4, Reports: []any{&metrics.MigrationResult{Start: 90 * sim.Second, BackfillDone: 150 * sim.Second}}}
	if copyingIn(m, 0, 0) != "" || !strings.Contains(copyingIn(m, 0, 2), "backfill") {
		t.Errorf("migration: window 0 %q (want none), window 2 %q (want the backfill)", copyingIn(m, 0, 0), copyingIn(m, 0, 2))
	}
}
