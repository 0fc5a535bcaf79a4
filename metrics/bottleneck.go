package metrics

import (
	"fmt"
	"strconv"
	"strings"
)

// Resource is what binds a run: the resource its failures, or its latency, come from.
type Resource uint8

// The resources a run can be bound by.
const (
	CPU            Resource = iota // a node's cores: requests queue for them
	Queue                          // a node's request queue: it was full and turned subrequests away
	PartitionLimit                 // a partition throughput limit throttled requests
	ClientLimit                    // the client's own rate limit turned requests away
	Locks                          // row-lock waits failed requests
	Timeout                        // requests timed out while every node had cores to spare
	FanOut                         // a wide request's subrequests hold the cores while the node is mostly idle
)

var resourceNames = [...]string{CPU: "cpu", Queue: "queue", PartitionLimit: "partition limit", ClientLimit: "client limit", Locks: "locks", Timeout: "timeout", FanOut: "fan-out"}

// String is the resource's name in tables, CSV and JSON.
func (r Resource) String() string {
	if int(r) < len(resourceNames) {
		return resourceNames[r]
	}
	return "?"
}

// Bottleneck names what binds a run, or what would bind it first as the load grows. When
// requests failed, it is the resource behind the most common cause: a full queue (the
// node whose queue grew longest), a partition limit, the client's rate limit, lock waits;
// requests that timed out, or a run whose backlog diverged, waited on CPU, unless no
// node's busiest window reached 90% of its cores: then the timeout itself binds (it is
// shorter than the work). Otherwise it is the node whose busiest window was the busiest:
// its CPU, or, when a latency objective failed while that window stayed under 90% of the
// node's cores and some stream fans out (at least two subrequests per request on
// average), fan-out: the widest stream's subrequests take every core at once and the
// others queue behind them, on a node mostly idle.
type Bottleneck struct {
	Resource Resource
	// Node is the node concerned (CPU and Queue), -1 otherwise; Load and Peak are its
	// utilization over the run and in its busiest window (fractions 0..1 of its cores).
	Node       int
	Load, Peak float64
	// Stream is the wide stream, for FanOut.
	Stream string
	// Text says it in words: "cpu of node 15 (98% at peak, 81% mean)".
	Text string
}

// BottleneckOf names what binds r; sloFailed says that a latency objective failed on it
// (capacity and sweep judge them; a run alone has none).
func BottleneckOf(r *Run, sloFailed bool) Bottleneck {
	b := Bottleneck{Resource: CPU, Node: -1}
	worst := Cause(0)
	for _, c := range Causes {
		if r.Failures[c] > r.Failures[worst] {
			worst = c
		}
	}
	if r.Failures[worst] > 0 && worst != TimedOut {
		switch worst {
		case Rejected:
			b.Resource = Queue
			q := -1
			for i, n := range r.Nodes {
				if n.MaxQueue > q {
					q, b.Node = n.MaxQueue, i
				}
			}
		case Throttled:
			b.Resource = PartitionLimit
		case Limited:
			b.Resource = ClientLimit
		case Lock:
			b.Resource = Locks
		}
	} else {
		peak := -1.0
		for i, n := range r.Nodes {
			if n.Peak > peak {
				peak, b.Node = n.Peak, i
			}
		}
	}
	if b.Node >= 0 {
		n := r.Nodes[b.Node]
		b.Load, b.Peak = n.Utilization, n.Peak
	}
	if worst == TimedOut && r.Failures[worst] > 0 && b.Peak < 0.9 {
		b.Resource = Timeout
	}
	if sloFailed && r.Failures[worst] == 0 && b.Peak < 0.9 {
		for i := range r.Streams {
			if f := r.Streams[i].Fanout.Mean; f >= 2 && (b.Stream == "" || f > r.Stream(b.Stream).Fanout.Mean) {
				b.Resource, b.Stream = FanOut, r.Streams[i].Name
			}
		}
	}
	switch {
	case b.Resource == Locks:
		b.Text = fmt.Sprintf("row locks (%d requests waited longer than lock_timeout)", r.Failures[worst])
	case b.Node < 0:
		b.Text = fmt.Sprintf("%s (%d requests %s)", b.Resource, r.Failures[worst], strings.ReplaceAll(worst.String(), "_", " "))
	case b.Resource == FanOut:
		b.Text = fmt.Sprintf("fan-out of %s (%.0f subrequests per request take the cores at once; node %d at %s cpu at peak)",
			b.Stream, r.Stream(b.Stream).Fanout.Mean, b.Node, pct(b.Peak))
	case b.Resource == Timeout:
		b.Text = fmt.Sprintf("timeout (%d requests timed out; node %d at %s cpu at peak)", r.Failures[worst], b.Node, pct(b.Peak))
	case b.Resource == Queue:
		b.Text = fmt.Sprintf("queue of node %d (%d waiting at most; %s cpu at peak)", b.Node, r.Nodes[b.Node].MaxQueue, pct(b.Peak))
	default:
		b.Text = fmt.Sprintf("cpu of node %d (%s at peak, %s mean)", b.Node, pct(b.Peak), pct(b.Load))
	}
	return b
}

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 0, 64) + "%" }
