package metrics

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/shardsim/shardsim/units"
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
	Waiting                        // a mechanism held work back before the nodes: a connection pool, a page latch (metrics.Wait)
)

var resourceNames = [...]string{CPU: "cpu", Queue: "queue", PartitionLimit: "partition limit", ClientLimit: "client limit", Locks: "locks", Timeout: "timeout", FanOut: "fan-out", Waiting: "wait"}

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
	// Stream is the wide stream, for FanOut, the locked one, for Locks, or the one held
	// back, for Waiting; Lock is then the load offered to its hottest row's lock
	// (LockWaits.Busy), or the share of its work that waited (Wait.Share; a Poisson
	// arrival finds a single server busy that share of the time), and WaitName the
	// mechanism's name ("pool", "page_latch").
	Stream   string
	Lock     float64
	WaitName string
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
	b := Bottleneck{Resource: CPU, Node: -1}
	worst := worstCause(r)
	failed := r.Failures[worst] > 0
	lock, locked := hottestLock(r)
	switch {
	case locksBind(r, worst, failed, lock, locked):
		b.Resource, b.Stream, b.Lock = Locks, locked, lock
		if locked == "" { // failures without a lock load: the stream that failed most
			b.Stream = mostLockFailures(r)
		}
	case failed && worst != TimedOut && worst != Lock:
		b.failedOn(r, worst)
	case waitsBind(r, failed, worst):
		b.Resource = Waiting
		b.Stream, b.WaitName, b.Lock = busiestWait(r)
	default:
		b.Node = busiestNode(r.Nodes, func(n Node) float64 { return n.Peak })
	}
	if b.Node >= 0 {
		n := r.Nodes[b.Node]
		b.Load, b.Peak = n.Utilization, n.Peak
	}
	b.notTheCPU(r, worst, failed, sloFailed)
	b.Binding = failed || sloFailed || max(b.Peak, b.Lock) >= BindingLoad
	b.Text = b.words(r, worst)
	return b
}

// notTheCPU names what binds instead of the CPU when b blames the CPU and its busiest
// node peaked under 90%: the timeouts, when they failed requests most, or the fan-out, when
// only a latency objective failed.
func (b *Bottleneck) notTheCPU(r *Run, worst Cause, failed, sloFailed bool) {
	if b.Resource != CPU || b.Peak >= 0.9 {
		return
	}
	switch {
	case worst == TimedOut && failed:
		b.Resource = Timeout
	case sloFailed && !failed:
		b.fanOut(r)
	}
}

// locksBind reports whether row locks bind: no node is saturated, and either requests
// failed waiting for a lock most, or the load offered to the hottest row's lock is at
// least the busiest node's peak while nothing but timeouts and locks failed requests.
func locksBind(r *Run, worst Cause, failed bool, lock float64, locked string) bool {
	nodePeak := 0.0
	for _, n := range r.Nodes {
		nodePeak = max(nodePeak, n.Peak)
	}
	if nodePeak >= cpuSaturated {
		return false
	}
	if failed && worst == Lock {
		return true
	}
	return locked != "" && lock >= nodePeak && (!failed || worst == TimedOut || worst == Lock)
}

// waitsBind reports whether a mechanism's wait binds: no node is saturated, nothing but
// timeouts and locks failed requests, and the share of a stream's work that waited for a
// connection or a latch is at least the busiest node's peak.
func waitsBind(r *Run, failed bool, worst Cause) bool {
	nodePeak := 0.0
	for _, n := range r.Nodes {
		nodePeak = max(nodePeak, n.Peak)
	}
	_, name, share := busiestWait(r)
	return name != "" && nodePeak < cpuSaturated && share >= nodePeak && (!failed || worst == TimedOut || worst == Lock)
}

// busiestWait returns the stream, the mechanism and the share of the stream's work that
// waited, for the wait with the highest share ("" when no stream waited); an uncapped wait
// (a group commit's flush) is no load on what it waits for, and is left out.
func busiestWait(r *Run) (stream, name string, share float64) {
	for i := range r.Streams {
		for _, w := range r.Streams[i].Waits {
			if w.Queued > 0 && w.Share > share && !w.Uncapped {
				stream, name, share = r.Streams[i].Name, w.Name, w.Share
			}
		}
	}
	return stream, name, share
}

// worstCause returns the cause that failed the most requests (the first cause when none
// failed any).
func worstCause(r *Run) Cause {
	worst := Cause(0)
	for _, c := range Causes {
		if r.Failures[c] > r.Failures[worst] {
			worst = c
		}
	}
	return worst
}

// hottestLock returns the highest load offered to a stream's hottest row lock, and that
// stream ("" when no stream locks).
func hottestLock(r *Run) (lock float64, locked string) {
	for i := range r.Streams {
		if l := r.Streams[i].Locks; l != nil && l.Busy > lock {
			lock, locked = l.Busy, r.Streams[i].Name
		}
	}
	return lock, locked
}

// mostLockFailures returns the stream whose requests failed waiting for a lock the most.
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

// busiestNode returns the first node with the largest figure of, -1 for none.
func busiestNode(nodes []Node, of func(Node) float64) int {
	best, node := math.Inf(-1), -1
	for i, n := range nodes {
		if of(n) > best {
			best, node = of(n), i
		}
	}
	return node
}

// failedOn names the resource that turned requests away for cause worst: a full queue
// (the node whose queue grew longest), a partition's limit or the client's.
func (b *Bottleneck) failedOn(r *Run, worst Cause) {
	switch worst {
	case Rejected:
		b.Resource = Queue
		b.Node = busiestNode(r.Nodes, func(n Node) float64 { return float64(n.MaxQueue) })
	case Throttled:
		b.Resource = PartitionLimit
	case Limited:
		b.Resource = ClientLimit
	}
}

// fanOut names the widest stream of at least two subrequests a request, if any, as what
// binds a node that stayed under 90% while an objective failed.
func (b *Bottleneck) fanOut(r *Run) {
	for i := range r.Streams {
		if f := r.Streams[i].Fanout.Mean; f >= 2 && (b.Stream == "" || f > r.Stream(b.Stream).Fanout.Mean) {
			b.Resource, b.Stream = FanOut, r.Streams[i].Name
		}
	}
}

// words says b in words.
func (b *Bottleneck) words(r *Run, worst Cause) string {
	switch {
	case b.Resource == Locks:
		return b.lockWords(r)
	case b.Resource == Waiting:
		return b.waitWords(r)
	case b.Node < 0:
		return fmt.Sprintf("%s (%s requests %s)", b.Resource, units.Count(r.Failures[worst]), strings.ReplaceAll(worst.String(), "_", " "))
	case b.Resource == FanOut:
		return fmt.Sprintf("fan-out of %s (%.0f subrequests per request take the cores at once; node %d at %s cpu at peak)",
			b.Stream, r.Stream(b.Stream).Fanout.Mean, b.Node, units.Percent(b.Peak, 0))
	case b.Resource == Timeout:
		return fmt.Sprintf("timeout (%s requests timed out; node %d at %s cpu at peak)", units.Count(r.Failures[worst]), b.Node, units.Percent(b.Peak, 0))
	case b.Resource == Queue:
		return fmt.Sprintf("queue of node %d (%s waiting at most; %s cpu at peak)", b.Node, units.Count(int64(r.Nodes[b.Node].MaxQueue)), units.Percent(b.Peak, 0))
	}
	return fmt.Sprintf("cpu of node %d (%s at peak, %s mean)", b.Node, units.Percent(b.Peak, 0), units.Percent(b.Load, 0))
}

// lockWords says a row lock's bottleneck: its hottest row's offered writes against what
// its lock passes, and the requests that waited too long.
func (b *Bottleneck) lockWords(r *Run) string {
	text := "row locks of " + b.Stream
	var parts []string
	if st := r.Stream(b.Stream); st != nil && st.Locks != nil && st.Locks.HoldMean != nil && b.Lock > 0 {
		parts = append(parts, fmt.Sprintf("its hottest row is offered %s writes/s, %s of the %s/s its lock passes at %s ms a write",
			units.Count(int64(math.Round(st.Locks.HotRate))), units.Percent(b.Lock, 0), units.Count(int64(math.Round(1000 / *st.Locks.HoldMean))), strconv.FormatFloat(*st.Locks.HoldMean, 'g', 3, 64)))
	}
	if n := r.Failures[Lock]; n > 0 {
		parts = append(parts, fmt.Sprintf("%s requests waited longer than lock_timeout", units.Count(n)))
	}
	if len(parts) > 0 {
		text += " (" + strings.Join(parts, "; ") + ")"
	}
	return text
}

// waitWords says a mechanism's wait as the bottleneck: the share of the stream's work that
// waited, and for how long on average.
func (b *Bottleneck) waitWords(r *Run) string {
	text := b.WaitName + " of " + b.Stream
	if st := r.Stream(b.Stream); st != nil {
		for _, w := range st.Waits {
			if w.Name == b.WaitName && w.Mean != nil {
				text += fmt.Sprintf(" (%s of its %s waited for it, %s ms on average)", units.Percent(w.Share, 0), w.Of, Ms(*w.Mean))
			}
		}
	}
	return text
}

// BottleneckJSON is a Bottleneck as JSON writes it: the resource (cpu, queue, partition limit,
// client limit, locks, timeout, fan-out), the node concerned (null for none) and its
// loads, the wide stream for fan-out, and a sentence.
type BottleneckJSON struct {
	Resource        string   `json:"resource"`
	Node            *int     `json:"node"`
	Utilization     *float64 `json:"node_utilization"`
	PeakUtilization *float64 `json:"node_peak_utilization"`
	Stream          string   `json:"stream,omitempty"`
	Text            string   `json:"text"`
}

// JSON converts b for JSON: summary.json's, and sweep's and capacity's.
func (b Bottleneck) JSON() BottleneckJSON {
	j := BottleneckJSON{Resource: b.Resource.String(), Stream: b.Stream, Text: b.Text}
	if b.Node >= 0 {
		n, u, p := b.Node, Util(b.Load), Util(b.Peak)
		j.Node, j.Utilization, j.PeakUtilization = &n, &u, &p
	}
	return j
}
