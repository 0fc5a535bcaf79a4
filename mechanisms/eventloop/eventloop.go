// Package eventloop is the event loop's wake-ups, whole: its key ([cluster] wakeup_cost),
// its check and the resolver it registers with the scenario (keys.go), its engine side, a
// sim.Setting that attaches to the engine through sim.Core (eventloop.go), and its tests:
// the closed forms, a reference simulation of the batch queue, and the transcript of its
// story (testdata). docs/mitigations.md, "Event-loop wake-ups", says what it models.
package eventloop

import (
	"fmt"

	"github.com/shardsim/shardsim/sim"
)

// WakeUp is each node's event loop ([cluster] wakeup_cost, docs/mitigations.md
// "Event-loop wake-ups"): a server that serves its requests from an event loop (Redis,
// memcached, an nginx worker) pays a fixed CPU cost each time it wakes up, then serves
// every request it found waiting. A node keeps the count of the subrequests left in its
// current batch. When a core of the node takes a subrequest (from the node's queue, or on
// arrival by an idle core) and the count is 0, a new batch starts: it holds this
// subrequest and every subrequest waiting in the node's queue at that moment, this one's
// service is lengthened by Cost (CPU: the core is busy, and the node's busy time counts
// it), and the count is set to the batch's size; every subrequest taken, this one
// included, takes one off it.
//
// A request alone pays cost + Cost; when C requests are always waiting, each pays
// cost + Cost/C, so a node's cap grows with its load. C closed-loop clients with no think
// time and no network delay on one core make batches of C − 1 (the client whose request
// ends a batch sends its next after the core has taken the next batch), so the node
// completes (C − 1)/(Cost + (C − 1)·cost) a second, one client 1/(Cost + cost)
// (eventloop_test.go checks both, and the mean latency under Poisson arrivals against a
// reference simulation of the batch queue).
type WakeUp struct {
	Cost sim.Time // the CPU of one wake-up
}

// Waiter: the event loop holds nothing back before the nodes' queues.
func (WakeUp) Waiter() float64 { return 0 }

// Couples keeps a run with an event loop on one engine: its wake-ups are not split yet.
func (WakeUp) Couples() string { return "the event loop's wake-ups are not split yet" }

// Note says what the offered loads leave out of the event loop.
func (s WakeUp) Note() string {
	return fmt.Sprintf("the figures ignore the event loop's wake-ups: each node pays %v of CPU a wake-up, shared by the requests waiting when it wakes, so a request costs up to %v more than its cost (when it finds its node idle) and less as requests queue: the loads are low by up to that, and a node's cap grows with its load", s.Cost, s.Cost)
}

// loops is the event loops' state: by node, the subrequests left in its current batch.
type loops struct {
	cost sim.Time
	left []int32
}

// On turns the event loop on: every node gets a batch count, and every subrequest a core
// takes goes past it.
func (s WakeUp) On(c sim.Core) { c.StartSubs(&loops{cost: s.Cost, left: make([]int32, c.Nodes())}) }

// Start is subrequest si taken by a core of node n, with queued subrequests waiting behind
// it: the first of a batch starts one (this one and those queued) and pays the wake-up.
func (l *loops) Start(_ sim.Core, _ sim.Time, n int, _ int32, queued int) sim.Time {
	if l.left[n] > 0 {
		l.left[n]--
		return 0
	}
	l.left[n] = int32(queued) // the batch's size less this one
	return l.cost
}
