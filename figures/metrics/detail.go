package metrics

import "github.com/shardsim/shardsim/sim"

// FineWindow is one stream's latency in one window of a detail range (sim.Detail): the
// window's start (an offset from the run's start), the requests that completed in it and
// their p99 in milliseconds (nil when none did), capped at the maximum of the window of
// the run that holds it, as WindowQuantile caps a window's.
type FineWindow struct {
	Start     sim.Time
	Completed int64
	P99       *float64
}

// FineWindowsOf returns stream i's fine windows in r (nil without a detail range).
func FineWindowsOf(r *sim.Result, i int) []FineWindow {
	st := &r.Streams[i]
	if len(st.Fine) == 0 || r.Window <= 0 {
		return nil
	}
	out := make([]FineWindow, len(st.Fine))
	for k := range st.Fine {
		h := &st.Fine[k]
		start := r.Detail.FineStart(k)
		fw := FineWindow{Start: start, Completed: h.TotalCount()}
		if fw.Completed > 0 {
			v := float64(h.ValueAtQuantile(99)) / 1000
			if w := int(start / r.Window); w < len(st.Win) {
				v = min(v, st.Win[w].Max.Millis())
			}
			fw.P99 = ptr(v)
		}
		out[k] = fw
	}
	return out
}

// FineCrossing returns the end of the first fine window from from on whose p99 passed ms
// (the moment a monitor at the fine grain would have seen it), and whether one did.
func FineCrossing(r *sim.Result, i int, ms float64, from sim.Time) (sim.Time, bool) {
	for _, fw := range FineWindowsOf(r, i) {
		if fw.Start >= from && fw.P99 != nil && *fw.P99 > ms {
			return fw.Start + r.Detail.Window, true
		}
	}
	return 0, false
}
