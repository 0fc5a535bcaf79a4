package latch

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/units"
)

// The page latch's diagnosis rule, hot_index_page (docs/detection.md), on the wait it
// reports, page_latch.

// hotLatchLoad: a page latch that a share of 0.7 or more of the inserts find held is hot,
// as a row's lock: Poisson inserts find it held a share of the time equal to its load
// (PASTA), and the wait grows as 1/(1 - load) beyond.
const hotLatchLoad = diagnose.HotQueueLoad

func init() {
	diagnose.RegisterWaitRule("page_latch", func(v diagnose.Finding, st *metrics.Stream, w metrics.Wait) {
		if d, ok := hotIndexPage(st, w); ok {
			v.Add(d)
		}
	})
}

// hotIndexPage finds a stream whose inserts queue for their leaf page's latch: a key that
// grows with time appends every insert at the right edge of the index, one page at a time,
// however many cores the node has.
func hotIndexPage(st *metrics.Stream, w metrics.Wait) (diagnose.Diagnosis, bool) {
	if w.Share < hotLatchLoad || w.Mean == nil {
		return diagnose.Diagnosis{}, false
	}
	msg := fmt.Sprintf("%s: %s of its writes found their B-tree leaf page's latch held and waited %s ms on average (p99 %s ms): they append at the right edge of the index, where one page takes every insert in turn, so more cores do not help; lead the key with a salt bucket or another field (a tenant, a hash), or use a random id (UUIDv4 rather than a time-ordered one), so that inserts spread over many pages",
		st.Name, units.Percent(w.Share, 1), metrics.Ms(*w.Mean), metrics.Ms(*w.P99))
	return diagnose.Diagnosis{Kind: "hot_index_page", Subject: st.Name, Message: msg,
		Evidence: map[string]float64{"queued_share": units.Round(w.Share, 4), "mean_wait_ms": units.Round(*w.Mean, 4), "p99_wait_ms": units.Round(*w.P99, 4)}}, true
}
