package sim

import "testing"

// TestTimerQueueOrder: the ring keeps its timers in the order they were set across growth
// and wrap-around, and a timer due before the last one queued goes to the heap instead.
func TestTimerQueueOrder(t *testing.T) {
	e := &engine{streamTable: streamTable{streams: []streamState{{index: 0}}}}
	st := &e.streams[0]
	next := int32(0) // the next timer expected out of the ring
	set := int32(0)
	pop := func(k int) {
		for range k {
			q := &st.tq
			tm := q.items[q.head]
			q.head = (q.head + 1) % len(q.items)
			q.n--
			if tm.req != next {
				t.Fatalf("timer %d came out of the ring, want %d", tm.req, next)
			}
			next++
		}
	}
	for round := range 5 {
		for range 13 + 7*round {
			e.setTimer(st, timer{req: set}, Time(set))
			set++
		}
		pop(9 + 5*round)
	}
	pop(st.tq.n)
	if e.h.len() != 1 {
		t.Errorf("%d events in the heap, want the stream's one armed event", e.h.len())
	}
	e.setTimer(st, timer{req: set}, Time(set+10))
	e.setTimer(st, timer{req: set + 1}, Time(set)) // due before the last one queued
	if st.tq.n != 1 || e.h.len() != 2 || len(e.timers.items) != 1 {
		t.Errorf("ring %d, heap %d, heap timers %d; want 1 queued and the earlier timer on the heap", st.tq.n, e.h.len(), len(e.timers.items))
	}
}
