package sim

// A stream's client timeouts all last the same Client.Timeout from the moment an attempt
// is sent, and attempts are sent in time order, so its timers expire in the order they are
// set. A stream keeps them in a FIFO and the event heap holds only the earliest (one
// evTimers event a stream) instead of one event per attempt in flight: with a timeout of a
// second at 500 attempts a second, the heap would otherwise carry 500 more events that every
// push and pop of every request sifts through. A timer that would expire before the last
// one queued (an attempt sent at an earlier time than the one before it) takes the heap as
// its own event (evTimer).

// timerQueue is a ring of timers and their deadlines, in deadline order. It grows to the
// most timeouts a stream has pending at once and then allocates no more.
type timerQueue struct {
	items     []timer
	deadlines []Time
	head, n   int
	armed     bool // an evTimers event for the head is in the heap
}

// setTimer arranges for timer tm of stream st to fire at deadline.
func (e *engine) setTimer(st *streamState, tm timer, deadline Time) {
	q := &st.tq
	if q.n > 0 && deadline < q.deadlines[(q.head+q.n-1)%len(q.items)] {
		ti := e.timers.take()
		e.timers.items[ti] = tm
		e.h.pushKind(deadline, ti, evTimer)
		return
	}
	if q.n == len(q.items) {
		q.grow()
	}
	i := (q.head + q.n) % len(q.items)
	q.items[i], q.deadlines[i] = tm, deadline
	q.n++
	if !q.armed {
		q.armed = true
		e.h.pushKind(deadline, int32(st.index), evTimers)
	}
}

// grow doubles the ring, keeping its order.
func (q *timerQueue) grow() {
	n := max(16, 2*len(q.items))
	items, deadlines := make([]timer, n), make([]Time, n)
	for k := range q.n {
		j := (q.head + k) % len(q.items)
		items[k], deadlines[k] = q.items[j], q.deadlines[j]
	}
	q.items, q.deadlines, q.head = items, deadlines, 0
}

// timersDue fires stream si's timers due at now, in the order they were set, and arms the
// next one.
func (e *engine) timersDue(now Time, si int32) {
	q := &e.streams[si].tq
	for q.n > 0 && q.deadlines[q.head] <= now {
		tm := q.items[q.head]
		q.head = (q.head + 1) % len(q.items)
		q.n--
		e.timeout(now, tm)
	}
	if q.n > 0 {
		e.h.pushKind(q.deadlines[q.head], si, evTimers)
	} else {
		q.armed = false
	}
}
