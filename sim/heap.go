package sim

import "math/bits"

// event is the end of a subrequest's service, or one of the rarer events: the client's,
// or a mechanism's (see evKind). (A stream's next arrival is kept by the stream itself; see
// engine.step.) Events are values in a slice-backed heap, so pushing and popping never
// allocates (container/heap would box each one in an interface).
type event struct {
	at   Time
	seq  uint64 // insertion order: breaks ties so that the run is deterministic
	idx  int32  // the subrequest slot whose service ends, or the slot kind refers to
	kind evKind
}

// evKind says what an event does; idx names its object.
type evKind uint8

const (
	evDone    evKind = iota // a subrequest's service ends (subrequest slot)
	evTimer                 // a client's timeout fires (timer slot)
	evSend                  // a retried attempt reaches the nodes (request slot)
	evRelease               // a stream's rate limit lets its next held request go (stream)
	evIssue                 // a closed-loop client's request reaches the nodes (stream)
	evTimers                // a stream's earliest queued client timeout fires (stream; timers.go)
	evFixed                 // the kinds above, the core's (engine.rare); mechanisms allocate theirs with NewEventKind
	evKinds   evKind = 48   // the most kinds a run can have
)

// signBit flips a time's sign bit, which maps signed times to unsigned integers of the same
// order (a model built through the API may schedule events before 0).
const signBit = 1 << 63

// eventHeap is a 4-ary min-heap ordered by (at, seq). A 4-ary heap halves the depth of a
// binary one and keeps a node's children in one cache line (LaMarca and Ladner, "The
// influence of caches on the performance of heaps", 1996).
type eventHeap struct {
	ev  []event
	seq uint64
	// held: ev[0] has been handed out by hold and is no longer in the heap, though it
	// still occupies the root until the next push replaces it or release pops it.
	held bool
}

func (h *eventHeap) len() int { return len(h.ev) }

// push schedules the end of subrequest idx's service at time at.
func (h *eventHeap) push(at Time, idx int32) { h.pushKind(at, idx, evDone) }

// pushKind schedules an event of any kind. The new event is kept in registers while the
// hole moves up, compared field by field (a method taking its address would put it on
// the stack).
func (h *eventHeap) pushKind(at Time, idx int32, kind evKind) {
	h.seq++
	seq := h.seq
	if h.held {
		h.held = false
		h.down(event{at: at, seq: seq, idx: idx, kind: kind})
		return
	}
	h.ev = append(h.ev, event{})
	ev := h.ev
	i := len(ev) - 1
	for i > 0 {
		p := (i - 1) / 4
		if pa := ev[p].at; at > pa || at == pa && seq > ev[p].seq {
			break
		}
		ev[i] = ev[p]
		i = p
	}
	ev[i] = event{at: at, seq: seq, idx: idx, kind: kind}
}

// hold returns the earliest event and takes it out of the heap (see held). The heap must
// not be empty.
func (h *eventHeap) hold() event {
	h.held = true
	return h.ev[0]
}

// release pops the held event if no push has replaced it.
func (h *eventHeap) release() {
	if h.held {
		h.held = false
		h.pop()
	}
}

// pop removes and returns the earliest event. It must not be called on an empty heap.
func (h *eventHeap) pop() event {
	ev := h.ev
	top := ev[0]
	n := len(ev) - 1
	last := ev[n]
	h.ev = ev[:n]
	if n > 0 {
		h.down(last)
	}
	return top
}

// down puts e at the root, in place of the event there, and moves it down to its place.
func (h *eventHeap) down(e event) {
	ev := h.ev
	n := len(ev)
	i := 0
	for {
		c := 4*i + 1
		if c >= n {
			break
		}
		// The earliest of the (up to) four children.
		m, mat, mseq := c, ev[c].at, ev[c].seq
		for j := c + 1; j < min(c+4, n); j++ {
			// Branch-free, as which child is earliest is random: the borrow of the
			// 128-bit subtraction (at, seq) - (mat, mseq), times made unsigned in order,
			// is 1 exactly when the child is earlier, and makes a mask.
			ja, js := ev[j].at, ev[j].seq
			_, lt := bits.Sub64(js, mseq, 0)
			_, lt = bits.Sub64(uint64(ja)^signBit, uint64(mat)^signBit, lt)
			mask := -lt
			m ^= (m ^ j) & int(mask)
			mat ^= (mat ^ ja) & Time(mask)
			mseq ^= (mseq ^ js) & mask
		}
		if mat > e.at || mat == e.at && mseq > e.seq {
			break
		}
		ev[i] = ev[m]
		i = m
	}
	ev[i] = e
}
