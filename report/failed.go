package report

import (
	"fmt"

	"github.com/shardsim/shardsim/units"
)

// Latency percentiles are of the requests that completed: a failed request (rejected,
// throttled, timed out, limited) has no latency. A p99 of 457 ms beside 37% of the requests
// failing tells a reader the opposite of what happened, so wherever a percentile is shown
// beside requests that failed, the share that failed is shown with it.

// failedWords is " (36.8% failed)" for a stream some of whose requests failed, to follow
// a percentile of the others; "" when none failed.
func failedWords(failed, offered int64) string {
	if failed <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%s failed)", units.ShareOf(failed, offered, 1))
}

// anyFailed reports whether some stream of v had requests that failed.
func anyFailed(v *VariantSummary) bool {
	for _, s := range v.Streams {
		if s.Failed > 0 {
			return true
		}
	}
	return false
}

// completedNote says, under a table of latency percentiles, that they leave out the
// failed requests, whose share the table's error rate column gives; "" when none failed.
func completedNote(v *VariantSummary) string {
	if !anyFailed(v) {
		return ""
	}
	return "latencies (p50 to max) are of completed requests only: a failed request has none, and the error rate is the share of the stream's requests that failed"
}
