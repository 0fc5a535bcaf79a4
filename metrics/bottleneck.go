package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/internal/numfmt"
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
// node whose queue grew longest), a partition limit, the client's rate limit; lock waits,
// unless a node's busiest window reached its cores (cpuSaturated): a node that cannot keep
// up binds before a lock that turns writes away. Requests that timed out, or a run whose
// backlog diverged, waited on CPU, unless no node's busiest window reached 90% of its
// cores: then the timeout itself binds (it is shorter than the work). Row locks bind, with
// or without failures, when the load offered to a stream's hottest row lock
// (LockWaits.Busy) is at least the busiest node's peak, no node is saturated and no other
// cause failed requests: a lock is a server of its own, which more cores do not make faster. Otherwise it is the
// node whose busiest window was the busiest: its CPU, or, when a latency objective failed
// while that window stayed under 90% of the node's cores and some stream fans out (at
// least two subrequests per request on average), fan-out: the widest stream's subrequests
// take every core at once and the others queue behind them, on a node mostly idle.
type Bottleneck struct {
	Resource Resource
	// Node is the node concerned (CPU and Queue), -1 otherwise; Load and Peak are its
	// utilization over the run and in its busiest window (fractions 0..1 of its cores).
	Node       int
	Load, Peak float64
	// Stream is the wide stream, for FanOut, or the locked one, for Locks; Lock is then
	// the load offered to its hottest row's lock (LockWaits.Busy).
	Stream string
	Lock   float64
	// Binding says that it binds now rather than only first as the load grows: requests
	// failed, an objective failed, or the resource ran at BindingLoad or more (the node's
	// busiest window, or the lock's offered load).
	Binding bool
	// Text says it in words: "cpu of node 15 (98% at peak, 81% mean)".
	Text string
}

// cpuSaturated is the busiest-window load at which a node has no cores to spare: its
// queue grows, and it binds before lock failures do.
const cpuSaturated = 0.99

// BindingLoad is the load below which a resource that nothing failed on is named only as
// the one nearest its limit, not as binding: under half its capacity a queue for it is
// short (an M/M/1 server at 50% makes a request wait one service time on average).
const BindingLoad = 0.5

// BottleneckOf names what binds r; sloFailed says that a latency objective failed on it
// (capacity and sweep judge them; a run alone has none).
func BottleneckOf(r *Run, sloFailed bool) Bottleneck {
	s := signsOf(r)
	b := s.bottleneck(r)
	if b.Node >= 0 {
		n := r.Nodes[b.Node]
		b.Load, b.Peak = n.Utilization, n.Peak
	}
	if b.Resource == CPU && b.Peak < 0.9 {
		b.Resource, b.Stream = s.idleCPU(r, sloFailed)
	}
	b.Binding = s.failed || sloFailed || max(b.Peak, b.Lock) >= BindingLoad
	b.Text = b.describe(r, s.worst)
	return b
}

// bottleneck is the resource the signs point at, before a node's CPU is judged by its
// peak: row locks (of the stream with the busiest lock, or with the most lock failures),
// the resource behind the failures, or the busiest node's CPU.
func (s bottleneckSigns) bottleneck(r *Run) Bottleneck {
	b := Bottleneck{Resource: CPU, Node: -1}
	switch {
	case s.locksBind():
		b.Resource, b.Stream, b.Lock = Locks, s.locked, s.lock
		if s.locked == "" { // failures without a lock load: the stream that failed most
			b.Stream = mostLockFailures(r)
		}
	case s.failed && s.worst != TimedOut && s.worst != Lock:
		b.Resource, b.Node = failedResource(r, s.worst)
	default:
		b.Node = busiestNode(r)
	}
	return b
}

// idleCPU is what binds in place of a node's CPU that stayed under 90% of its cores at
// peak: the timeout itself when requests timed out most; fan-out, and the widest stream,
// when a latency objective failed, no request failed and a stream fans out; else the CPU
// still.
func (s bottleneckSigns) idleCPU(r *Run, sloFailed bool) (Resource, string) {
	switch {
	case s.failed && s.worst == TimedOut:
		return Timeout, ""
	case sloFailed && !s.failed:
		if wide := widestStream(r); wide != "" {
			return FanOut, wide
		}
	}
	return CPU, ""
}

// bottleneckSigns are what BottleneckOf judges a run by.
type bottleneckSigns struct {
	worst    Cause   // the cause that failed the most requests (the first of Causes on a tie)
	failed   bool    // whether any request failed
	nodePeak float64 // the busiest window of the busiest node
	lock     float64 // the load offered to the busiest row lock (LockWaits.Busy), ...
	locked   string  // ... and its stream; "" when no stream has a lock load
}

// signsOf reads r's signs.
func signsOf(r *Run) bottleneckSigns {
	s := bottleneckSigns{worst: Cause(0)}
	for _, c := range Causes {
		if r.Failures[c] > r.Failures[s.worst] {
			s.worst = c
		}
	}
	s.failed = r.Failures[s.worst] > 0
	for _, n := range r.Nodes {
		s.nodePeak = max(s.nodePeak, n.Peak)
	}
	for i := range r.Streams {
		if l := r.Streams[i].Locks; l != nil && l.Busy > s.lock {
			s.lock, s.locked = l.Busy, r.Streams[i].Name
		}
	}
	return s
}

// locksBind reports whether row locks bind: no node is saturated, and lock waits failed
// the most requests, or the busiest lock's load is at least the busiest node's peak while
// nothing but timeouts and lock waits failed.
func (s bottleneckSigns) locksBind() bool {
	if !(s.nodePeak < cpuSaturated) {
		return false
	}
	lockFailed := s.failed && s.worst == Lock
	lockBusy := s.locked != "" && s.lock >= s.nodePeak && (!s.failed || s.worst == TimedOut || s.worst == Lock)
	return lockFailed || lockBusy
}

// mostLockFailures is the stream with the most lock failures ("" when none has any).
func mostLockFailures(r *Run) string {
	var most int64
	name := ""
	for i := range r.Streams {
		if f := r.Streams[i].Failures[Lock]; f > most {
			most, name = f, r.Streams[i].Name
		}
	}
	return name
}

// failedResource is the resource behind the failure cause worst (Rejected, Throttled or
// Limited), and for a full queue the node whose queue grew longest (-1 otherwise).
func failedResource(r *Run, worst Cause) (Resource, int) {
	switch worst {
	case Rejected:
		node, q := -1, -1
		for i, n := range r.Nodes {
			if n.MaxQueue > q {
				q, node = n.MaxQueue, i
			}
		}
		return Queue, node
	case Throttled:
		return PartitionLimit, -1
	case Limited:
		return ClientLimit, -1
	}
	return CPU, -1
}

// busiestNode is the node whose busiest window was the busiest (the first on a tie; -1
// when r has no nodes).
func busiestNode(r *Run) int {
	node, peak := -1, -1.0
	for i, n := range r.Nodes {
		if n.Peak > peak {
			peak, node = n.Peak, i
		}
	}
	return node
}

// widestStream is the stream with the most subrequests per request on average, at least
// two (the first on a tie; "" when none fans out that wide).
func widestStream(r *Run) string {
	name, widest := "", 0.0
	for i := range r.Streams {
		if f := r.Streams[i].Fanout.Mean; f >= 2 && (name == "" || f > widest) {
			name, widest = r.Streams[i].Name, f
		}
	}
	return name
}

// describe says b in words; worst is the cause that failed the most requests.
func (b *Bottleneck) describe(r *Run, worst Cause) string {
	switch {
	case b.Resource == Locks:
		return b.lockText(r)
	case b.Node < 0:
		return fmt.Sprintf("%s (%s requests %s)", b.Resource, count(r.Failures[worst]), strings.ReplaceAll(worst.String(), "_", " "))
	case b.Resource == FanOut:
		return fmt.Sprintf("fan-out of %s (%.0f subrequests per request take the cores at once; node %d at %s cpu at peak)",
			b.Stream, r.Stream(b.Stream).Fanout.Mean, b.Node, pct(b.Peak))
	case b.Resource == Timeout:
		return fmt.Sprintf("timeout (%s requests timed out; node %d at %s cpu at peak)", count(r.Failures[worst]), b.Node, pct(b.Peak))
	case b.Resource == Queue:
		return fmt.Sprintf("queue of node %d (%s waiting at most; %s cpu at peak)", b.Node, count(int64(r.Nodes[b.Node].MaxQueue)), pct(b.Peak))
	}
	return fmt.Sprintf("cpu of node %d (%s at peak, %s mean)", b.Node, pct(b.Peak), pct(b.Load))
}

// lockText says a Locks bottleneck in words: the stream, its hottest row's offered writes
// against what its lock passes, and the requests that waited past lock_timeout.
func (b *Bottleneck) lockText(r *Run) string {
	text := "row locks of " + b.Stream
	var parts []string
	if st := r.Stream(b.Stream); st != nil && st.Locks != nil && st.Locks.HoldMean != nil && b.Lock > 0 {
		parts = append(parts, fmt.Sprintf("its hottest row is offered %s writes/s, %s of the %s/s its lock passes at %s ms a write",
			count(int64(math.Round(st.Locks.HotRate))), pct(b.Lock), count(int64(math.Round(1000 / *st.Locks.HoldMean))), strconv.FormatFloat(*st.Locks.HoldMean, 'g', 3, 64)))
	}
	if n := r.Failures[Lock]; n > 0 {
		parts = append(parts, fmt.Sprintf("%s requests waited longer than lock_timeout", count(n)))
	}
	if len(parts) > 0 {
		text += " (" + strings.Join(parts, "; ") + ")"
	}
	return text
}

// count writes n with thousands separators, as the tables do: 96,048.
func count(n int64) string { return numfmt.Count(n) }

func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 0, 64) + "%" }
