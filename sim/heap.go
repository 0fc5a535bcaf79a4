package sim

// event is the end of a subrequest's service. (A stream's next arrival is kept by the
// stream itself; see engine.step.) Events are values in a slice-backed heap, so pushing and
// popping never allocates (container/heap would box each one in an interface).
type event struct {
	at  Time
	seq uint64 // insertion order: breaks ties so that the run is deterministic
	idx int32  // the subrequest slot whose service ends
}

func (a *event) less(b *event) bool {
	return a.at < b.at || (a.at == b.at && a.seq < b.seq)
}

// eventHeap is a 4-ary min-heap ordered by (at, seq). A 4-ary heap halves the depth of a
// binary one and keeps a node's children in one cache line (LaMarca and Ladner, "The
// influence of caches on the performance of heaps", 1996).
type eventHeap struct {
	ev  []event
	seq uint64
}

func (h *eventHeap) len() int { return len(h.ev) }

// push schedules an event at time at.
func (h *eventHeap) push(at Time, idx int32) {
	h.seq++
	h.ev = append(h.ev, event{at: at, seq: h.seq, idx: idx})
	ev := h.ev
	i := len(ev) - 1
	e := ev[i]
	for i > 0 {
		p := (i - 1) / 4
		if !e.less(&ev[p]) {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = e
}

// pop removes and returns the earliest event. It must not be called on an empty heap.
func (h *eventHeap) pop() event {
	ev := h.ev
	top := ev[0]
	n := len(ev) - 1
	last := ev[n]
	h.ev = ev[:n]
	if n == 0 {
		return top
	}
	ev = ev[:n]
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		m := c
		end := min(c+4, n)
		for j := c + 1; j < end; j++ {
			if ev[j].less(&ev[m]) {
				m = j
			}
		}
		if !ev[m].less(&last) {
			break
		}
		ev[i] = ev[m]
		i = m
	}
	ev[i] = last
	return top
}
