package sim

// Watching a run as it goes: a capacity search stops a run as soon as its verdict is
// settled (docs/capacity.md, "How the search works"), and judges it on what it measured
// by then. Model.Watch is called between events, at most once a window of simulated
// time, never on the request path.

// Watch is a running engine's figures so far, as Model.Watch sees them. Its methods read
// what the engine has counted: the requests issued after the warmup that completed by
// now, not those still in flight.
type Watch struct{ e *engine }

// Now is the simulated time of the latest event.
func (w Watch) Now() Time { return w.e.now }

// Completed is how many requests of stream i issued after the warmup have succeeded so far.
func (w Watch) Completed(i int) int64 { return w.e.streams[i].out.Completed }

// Quantile is the q-quantile (0 < q <= 1) of stream i's latency over the requests counted
// so far, in the run histogram's resolution; 0 when none completed.
func (w Watch) Quantile(i int, q float64) Time {
	st := &w.e.streams[i]
	n := st.out.Completed
	if n == 0 || st.latCounts == nil {
		return 0
	}
	return Time(runLayout.histogram(st.latCounts).ValueAtQuantile(100*q)) * Microsecond
}

// Mean is stream i's mean latency over the requests counted so far (0 when none completed).
func (w Watch) Mean(i int) Time {
	out := w.e.streams[i].out
	if out.Completed == 0 {
		return 0
	}
	return Time(out.LatencySum / float64(out.Completed))
}

// Max is stream i's longest latency counted so far.
func (w Watch) Max(i int) Time { return w.e.streams[i].out.LatencyMax }

// Failed is how many requests of stream i issued after the warmup have failed so far:
// rejected, timed out, limited, or failed for a cause a mechanism registered.
func (w Watch) Failed(i int) int64 {
	out := w.e.streams[i].out
	return out.Rejected + out.TimedOut + out.Limited + out.Failed.Sum()
}

// NodeBusy is the core time node n has been busy in window win (Model.Window wide) so far,
// counting the whole service of every subrequest that has begun (cut at the end of the
// run), so that a window is final once Now is past its end: the figure Result.NodeBusy
// holds for it at the end of the run. ok is false where the engine no longer holds the
// window (a Model.Sink took it) or win is not one of the run's windows. It reads the
// shards' series, which the event loop keeps anyway: nothing is counted for it.
func (w Watch) NodeBusy(n, win int) (busy Time, ok bool) {
	e := w.e
	if win < 0 || win >= e.res.Windows || n < 0 || n >= e.nNodes || e.ring != nil && win <= e.ring.closedW {
		return 0, false
	}
	if e.trackNode {
		return e.res.NodeBusy[win*e.nNodes+n], true
	}
	row := (win & e.wMask) * e.nShards
	for s, at := range e.shardNode[:e.nShards] {
		if int(at) == n {
			busy += e.res.ShardBusy[row+s]
		}
	}
	return busy, true
}

// Queued is how many subrequests wait in all the queues now.
func (w Watch) Queued() int { return w.e.queued }

// watch calls Model.Watch when a window of simulated time (between 1 and 5 seconds) has
// passed since the last call, and reports whether it asked the run to stop. A worker of a
// split run (its part of the nodes only) is not watched.
func (e *engine) watch() bool {
	if e.m.Watch == nil || e.part != nil || e.now < e.nextWatch {
		return false
	}
	e.nextWatch = e.now + min(max(e.m.Window, Second), 5*Second)
	return e.m.Watch(Watch{e})
}
