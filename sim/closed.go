package sim

// This file holds the closed-loop clients of Stream.Clients: each issues a request, waits
// for its outcome, thinks for a draw of Stream.Think and issues the next. Their state is
// the stream's (streamState's closed and think); their event, evIssue, is the core's.

// startClients starts closed-loop stream st's clients. Each thinks first, so that they do
// not all start at t = 0.
func (e *engine) startClients(st *streamState) {
	st.closed, st.think, st.after = true, newDelaySampler(st.s.Think), never
	for range st.s.Clients {
		if t := st.think.draw(st.arr); t < e.m.Duration {
			e.h.pushKind(t+e.m.Network, int32(st.index), evIssue)
		}
	}
}

// issueClosed handles the next request of closed-loop stream i, which reaches its nodes
// now: its client issued it a network delay ago.
func (e *engine) issueClosed(now Time, i int32) {
	st := &e.streams[i]
	st.next = now - e.m.Network
	e.arrive(now, int(i))
}

// think starts the think time of a client of closed-loop stream st, which heard the
// outcome of its request at t; its next request follows unless the run is over by then.
func (e *engine) think(st *streamState, t Time) {
	next := t + st.think.draw(st.arr)
	if next >= e.m.Duration {
		return
	}
	// A cache hit's answer may be timed before the event that produced it; the next
	// request cannot reach the nodes before now.
	e.h.pushKind(max(next+e.m.Network, e.now), int32(st.index), evIssue)
}
