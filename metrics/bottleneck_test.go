package metrics

import "testing"

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
