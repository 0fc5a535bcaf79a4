package metrics

import "github.com/shardsim/shardsim/sim"

// RetrySpan is when a stream retried over a run: every retried attempt (an attempt after
// a request's first, sent because the one before timed out or was refused), the first and
// last windows that sent any, and the window that sent the most. Window indices are -1
// when the stream sent no retry.
type RetrySpan struct {
	Total             int64
	First, Last, Peak int
	PeakCount         int64
}

// RetriesOf returns stream i's retry span in r. Its total is the stream's own count after
// the warmup (the client table's retries); the windows are every window with a retry
// sent in it, the warmup's included.
func RetriesOf(r *sim.Result, i int) RetrySpan {
	st := &r.Streams[i]
	rs := RetrySpan{Total: st.Retries, First: -1, Last: -1, Peak: -1}
	for w := range st.Win {
		n := st.Win[w].Retries
		if n == 0 {
			continue
		}
		if rs.First < 0 {
			rs.First = w
		}
		rs.Last = w
		if n > rs.PeakCount {
			rs.Peak, rs.PeakCount = w, n
		}
	}
	return rs
}
