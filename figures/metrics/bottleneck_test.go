package metrics

import (
	"testing"
)

// What binds a run, by constructed cases: the most common failure cause names the
// resource (a full queue on the node whose queue grew longest, a partition or client
// limit); timeouts bind on CPU when a node's busiest window reached 90% of its cores and
// on the timeout itself otherwise; with no failure, CPU on the node with the busiest
// window (not the busiest mean), unless a latency objective failed while that window
// stayed under 90% and a stream fans out to two subrequests or more: then the widest
// stream's fan-out. Without a failed objective, fan-out is never named.
func TestBottleneckOf(t *testing.T) {
	nodes := []Node{{ID: 0, Utilization: 0.7, Peak: 0.75, MaxQueue: 3}, {ID: 1, Utilization: 0.5, Peak: 0.95, MaxQueue: 40}}
	cases := []struct {
		name     string
		failures Failures
		nodes    []Node
		res      Resource
		node     int
		streams  []Stream
	}{
		{"none", Failures{}, nodes, CPU, 1, nil},
		{"rejected", Failures{Rejected: 5, TimedOut: 2}, nodes, Queue, 1, nil},
		{"throttled", Failures{Throttled: 9, Rejected: 1}, nodes, PartitionLimit, -1, nil},
		{"limited", Failures{Limited: 9}, nodes, ClientLimit, -1, nil},
		{"timeouts on a busy node", Failures{TimedOut: 9}, nodes, CPU, 1, nil},
		{"timeouts with cores to spare", Failures{TimedOut: 9}, []Node{{Peak: 0.2}, {Peak: 0.3}}, Timeout, 1, nil},
		{"fan-out", Failures{}, []Node{{Peak: 0.2}, {Peak: 0.3}}, FanOut, 1, []Stream{{Name: "put", Fanout: Fanout{Mean: 1}}, {Name: "scan", Fanout: Fanout{Mean: 30}}, {Name: "multi", Fanout: Fanout{Mean: 3}}}},
		{"fan-out on a busy node", Failures{}, []Node{{Peak: 0.95}}, CPU, 0, []Stream{{Name: "scan", Fanout: Fanout{Mean: 30}}}},
	}
	for _, c := range cases {
		b := BottleneckOf(&Run{Failures: c.failures, Nodes: c.nodes, Streams: c.streams}, c.streams != nil)
		if b.Resource != c.res || b.Node != c.node || b.Text == "" || (b.Resource == FanOut) != (b.Stream == "scan") {
			t.Errorf("%s: got %v on node %d (%q), want %v on node %d", c.name, b.Resource, b.Node, b.Text, c.res, c.node)
		}
		if c.streams != nil {
			if b := BottleneckOf(&Run{Failures: c.failures, Nodes: c.nodes, Streams: c.streams}, false); b.Resource == FanOut {
				t.Errorf("%s: fan-out named without a failed objective", c.name)
			}
		}
		if b.Node >= 0 && (b.Peak != c.nodes[b.Node].Peak || b.Load != c.nodes[b.Node].Utilization) {
			t.Errorf("%s: loads %v/%v are not node %d's", c.name, b.Load, b.Peak, b.Node)
		}
	}
}

// Lock failures and a saturated node, by constructed cases: lock failures bind on the
// locks while every node has cores to spare, but a node at 100% of its cores binds before
// them (the review's small.toml at 7 times its load: node 1 saturated, some writes over
// lock_timeout); so does a node busier than the lock's load without failures.
func TestBottleneckLocksAgainstCPU(t *testing.T) {
	locked := func(busy float64) []Stream {
		return []Stream{{Name: "upd", Failures: Failures{Lock: 7}, Locks: &LockWaits{Busy: busy, HoldMean: ptr(1), HotRate: 1000 * busy}}}
	}
	cases := []struct {
		name     string
		failures Failures
		peak     float64
		busy     float64
		res      Resource
		binding  bool
	}{
		{"lock failures, cores to spare", Failures{Lock: 7}, 0.4, 1.1, Locks, true},
		{"lock failures, saturated node", Failures{Lock: 7}, 1, 1.2, CPU, true},
		{"lock busier than the node", Failures{}, 0.3, 0.9, Locks, true},
		{"node busier than the lock", Failures{}, 0.8, 0.2, CPU, true},
		{"quiet", Failures{}, 0.3, 0.1, CPU, false},
	}
	for _, c := range cases {
		r := &Run{Failures: c.failures, Nodes: []Node{{ID: 0, Peak: c.peak}}, Streams: locked(c.busy)}
		b := BottleneckOf(r, false)
		if b.Resource != c.res || b.Binding != c.binding {
			t.Errorf("%s: got %v (%q), binding %v; want %v, binding %v", c.name, b.Resource, b.Text, b.Binding, c.res, c.binding)
		}
	}
}

// A mechanism's wait binds, by constructed cases: a stream whose requests waited for a
// connection 80% of the time, on nodes at 40% at peak, is bound by its pool; the same
// wait beside a node at 95% is bound by that node's cores (the wait is then the queue's
// symptom); a failure cause other than timeouts and locks names its own resource.
func TestBottleneckWaits(t *testing.T) {
	mean := 12.5
	run := func(peak float64, failed Cause) *Run {
		r := &Run{Nodes: []Node{{ID: 0, Utilization: peak / 2, Peak: peak}},
			Streams: []Stream{{Name: "get", Waits: []Wait{{Name: "pool", Of: "requests", Asked: 100, Queued: 80, Share: 0.8, Mean: &mean}}}}}
		if failed != TimedOut {
			r.Failures[failed] = 5
		}
		return r
	}
	b := BottleneckOf(run(0.4, TimedOut), false)
	if b.Resource != Waiting || b.Stream != "get" || b.WaitName != "pool" || !b.Binding || b.Text != "pool of get (80% of its requests waited for it, 12.5 ms on average)" {
		t.Errorf("pool at 80%%, nodes at 40%%: got %v %q, binding %v; want the pool of get, binding", b.Resource, b.Text, b.Binding)
	}
	if b := BottleneckOf(run(0.95, TimedOut), false); b.Resource != CPU {
		t.Errorf("node at 95%%: got %v (%q), want cpu", b.Resource, b.Text)
	}
	if b := BottleneckOf(run(0.4, Throttled), false); b.Resource != PartitionLimit {
		t.Errorf("throttled requests: got %v (%q), want partition limit", b.Resource, b.Text)
	}
}
