package sim

import (
	"math"

	"github.com/shardsim/shardsim/keyspace"
)

// This file holds what the client does: timeouts, retries with backoff, and its own rate
// limit.

// timeout handles timer tm: the client stops waiting for an attempt at now, unless the
// attempt ended first. The servers still finish the attempt's subrequests.
func (e *engine) timeout(now Time, tm timer) {
	if e.gens[tm.req] != tm.gen {
		return // the request finished and its slot moved on
	}
	r := &e.reqs.items[tm.req]
	if tm.attempt == r.attempt && r.live {
		r.live, r.fail = false, failTimeout
		if !e.retry(tm.req, now) {
			e.finish(tm.req, now, failTimeout)
		}
	}
	e.release(tm.req)
}

// retry sends request ri again after a backoff, if its client has attempts left; the
// client learnt of the failure at t. It reports whether it did.
func (e *engine) retry(ri int32, t Time) bool {
	r := &e.reqs.items[ri]
	st := &e.streams[r.stream]
	c := &st.s.Client
	if r.kind != reqClient || int(r.attempt) > c.Retries {
		return false
	}
	// Exponential backoff with full jitter: uniform on [0, min(max, base·2^(k-1))).
	ceil := c.Backoff
	for k := int32(1); k < r.attempt && ceil < c.BackoffMax; k++ {
		ceil *= 2
	}
	ceil = min(ceil, c.BackoffMax)
	var wait Time
	if ceil > 0 {
		wait = Time(st.cli.Int64N(int64(ceil)))
	}
	e.h.pushKind(t+wait+e.m.Network, ri, evSend)
	return true
}

// sendEvent handles a retried attempt that reaches the nodes now: it must pass the rate
// limit again.
func (e *engine) sendEvent(now Time, ri int32) {
	r := &e.reqs.items[ri]
	if e.streams[r.stream].limit != nil {
		e.admit(now, ri)
		return
	}
	e.send(now, ri, e.visits[ri])
}

// limiter is a token bucket kept as GCRA (the generic cell rate algorithm): tat is the
// theoretical arrival time of the next conforming request, so no refill is simulated.
type limiter struct {
	interval Time // 1/rate
	tau      Time // how far ahead of its schedule the bucket may run: (burst-1) intervals
	queue    bool
	tat      Time
}

func newLimiter(l *Limit) *limiter {
	iv := Time(math.Round(float64(Second) / l.Rate))
	return &limiter{interval: max(iv, 1), tau: max(iv, 1) * Time(max(l.Burst, 1)-1), queue: l.Queue}
}

// admit passes request ri, whose attempt would reach the nodes now, through its stream's
// rate limit: it is sent, rejected, or held back until its token comes.
func (e *engine) admit(now Time, ri int32) {
	r := &e.reqs.items[ri]
	st := &e.streams[r.stream]
	l := st.limit
	t := now - e.m.Network // the client sends at t
	if st.held.Len() == 0 && l.tat-l.tau <= t {
		l.tat = max(l.tat, t) + l.interval
		e.send(now, ri, e.visitsOf(ri, st))
		return
	}
	if !l.queue {
		e.finish(ri, t, failLimited)
		e.release(ri)
		return
	}
	e.hold(now, st, ri)
}

// hold queues request ri behind the stream's earlier held requests. It leaves at the time
// its token comes (kept in r.done until then) and reaches the nodes a network delay later.
func (e *engine) hold(now Time, st *streamState, ri int32) {
	l := st.limit
	t := now - e.m.Network
	at := max(t, l.tat-l.tau)
	l.tat = max(l.tat, at) + l.interval
	e.reqs.items[ri].done = at + e.m.Network
	if st.held.Len() == 0 {
		e.scheduleRelease(st, at+e.m.Network)
	}
	st.held.Push(ri)
	if e.queued++; e.queued > e.maxQueued && !e.stopped {
		e.saturate(now)
	}
}

// scheduleRelease sets the stream's one pending release event at t.
func (e *engine) scheduleRelease(st *streamState, t Time) {
	st.relAt = t
	e.h.pushKind(t, int32(st.index), evRelease)
}

// releaseHeld sends the stream's held requests whose time has come, and schedules the
// next. An event left over from before a limit changed is not the stream's pending one,
// and does nothing.
func (e *engine) releaseHeld(now Time, i int32) {
	st := &e.streams[i]
	if now != st.relAt {
		return // superseded: a limit change scheduled another release
	}
	for st.held.Len() > 0 {
		ri := st.held.Peek()
		if due := e.reqs.items[ri].done; due > now {
			e.scheduleRelease(st, due)
			return
		}
		st.held.Pop()
		e.queued--
		e.send(now, ri, e.visits[ri])
	}
}

// relimit gives stream i a new rate limit (nil: none) at now. The requests it held are
// sent at once when the limit is lifted, or queued afresh behind the new one.
func (e *engine) relimit(now Time, i int, l *Limit) {
	st := &e.streams[i]
	st.limit = nil
	if l != nil {
		st.limit = newLimiter(l)
	}
	var held []int32 // taken out first: the new limit sees them as new requests, in order
	for st.held.Len() > 0 {
		held = append(held, st.held.Pop())
		e.queued--
	}
	for _, ri := range held {
		if st.limit == nil {
			e.send(now, ri, e.visits[ri])
			continue
		}
		if st.limit.queue {
			e.hold(now, st, ri)
			continue
		}
		e.admit(now, ri)
	}
}

// visitsOf returns the visits of request ri: the stream's scratch plan for a request that
// is being issued now, the kept copy for one sent again.
func (e *engine) visitsOf(ri int32, st *streamState) []keyspace.Visit {
	if st.keep {
		return e.visits[ri]
	}
	return st.visits
}
