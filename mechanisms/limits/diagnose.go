package limits

import (
	"fmt"

	"github.com/shardsim/shardsim/figures/diagnose"
	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/sim"
)

// Partition limits' alert, throttled (docs/detection.md, "Alerts"): the first window in
// which a stream's requests were throttled.

// alertRank places throttled among a stream's alerts the mechanisms register: first,
// before a row lock's lock_timeout (200).
const alertRank = 100

func init() { diagnose.RegisterStreamAlert(alertRank, "throttled", throttled) }

// throttled fires in a window with requests of st throttled by a partition's limit, timed
// cluster-wide.
func throttled(_ *sim.Result, st *sim.StreamResult, w int) (string, int, bool) {
	n := st.Win[w].Failed[Throttled]
	if n == 0 {
		return "", -1, false
	}
	return fmt.Sprintf("%s: %s throttled in the window (a partition's throughput limit)", st.Name, metrics.Plural(n, "request")), -1, true
}
