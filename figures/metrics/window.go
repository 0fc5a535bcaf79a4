package metrics

import "github.com/shardsim/shardsim/sim"

// StreamWindow is one stream's figures in one window. Offered counts the requests issued in
// the window; Completed and Failed count the requests whose answer (or failure) reached the
// client in it, so under a growing queue Offered runs ahead of the other two. Rates are per
// second of the window's span (sim.Result.WindowSpan) and nil when the window has none (a
// run that stopped before it); P99 is nil when nothing completed in the window.
type StreamWindow struct {
	Offered, Completed, Failed             int64
	OfferedRate, CompletedRate, FailedRate *float64
	P99                                    *float64 // milliseconds, capped at the window's maximum
	// Retries counts the attempts after a request's first sent in the window; RetryRate
	// is per second of its span, nil as the other rates.
	Retries   int64
	RetryRate *float64
}

// StreamWindowOf returns stream i's figures in window w of r.
func StreamWindowOf(r *sim.Result, i, w int) StreamWindow {
	wl := &r.Streams[i].Win[w]
	sw := StreamWindow{Offered: wl.Offered, Completed: wl.Completed, Failed: wl.Errors, P99: WindowQuantile(wl, 0.99), Retries: wl.Retries}
	if span := r.WindowSpan(w).Seconds(); span > 0 {
		sw.OfferedRate = ptr(float64(wl.Offered) / span)
		sw.CompletedRate = ptr(float64(wl.Completed) / span)
		sw.FailedRate = ptr(float64(wl.Errors) / span)
		sw.RetryRate = ptr(float64(wl.Retries) / span)
	}
	return sw
}
