package report

import (
	"fmt"
	"math"

	"github.com/shardsim/shardsim/metrics"
	"github.com/shardsim/shardsim/sim"
)

// Latency percentiles are of the requests that completed: a failed request (rejected,
// throttled, timed out, limited) has no latency. A p99 of 457 ms beside 37% of the requests
// failing tells a reader the opposite of what happened, so wherever a percentile is shown
// beside requests that failed, the share that failed is shown with it.

// fmtShare writes failed as a share of offered: one decimal, but never "0.0%" for some
// failures nor "100.0%" for fewer than all ("<0.1%", ">99.9%"); "0.0%" when none failed.
func fmtShare(failed, offered int64) string {
	if offered <= 0 {
		return metrics.Pct(0)
	}
	s := metrics.Pct(float64(failed) / float64(offered))
	switch {
	case failed > 0 && s == "0.0%":
		return "<0.1%"
	case failed < offered && s == "100.0%":
		return ">99.9%"
	}
	return s
}

// failedWords is " (36.8% failed)" for a stream some of whose requests failed, to follow
// a percentile of the others; "" when none failed.
func failedWords(failed, offered int64) string {
	if failed <= 0 {
		return ""
	}
	return fmt.Sprintf(" (%s failed)", fmtShare(failed, offered))
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

// seconds writes a span of simulated time given in seconds the one way the outputs write
// durations (the flags' way): "3h", "5m", "1h30m", "45s", "1.5s".
func seconds(s float64) string {
	return metrics.ShortDuration(sim.Time(math.Round(s * float64(sim.Second))))
}
