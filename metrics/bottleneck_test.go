package metrics

import "testing"

// What binds a run, by constructed cases: the most common failure cause names the
// resource (a full queue on the node whose queue grew longest, a partition or client
// limit); timeouts bind on CPU when a node's busiest window reached 90% of its cores and
// on the timeout itself otherwise; with no failure, CPU on the node with the busiest
// window (not the busiest mean).
func TestBottleneckOf(t *testing.T) {
	nodes := []Node{{ID: 0, Utilization: 0.7, Peak: 0.75, MaxQueue: 3}, {ID: 1, Utilization: 0.5, Peak: 0.95, MaxQueue: 40}}
	cases := []struct {
		name     string
		failures Failures
		nodes    []Node
		res      Resource
		node     int
	}{
		{"none", Failures{}, nodes, CPU, 1},
		{"rejected", Failures{Rejected: 5, TimedOut: 2}, nodes, Queue, 1},
		{"throttled", Failures{Throttled: 9, Rejected: 1}, nodes, PartitionLimit, -1},
		{"limited", Failures{Limited: 9}, nodes, ClientLimit, -1},
		{"timeouts on a busy node", Failures{TimedOut: 9}, nodes, CPU, 1},
		{"timeouts with cores to spare", Failures{TimedOut: 9}, []Node{{Peak: 0.2}, {Peak: 0.3}}, Timeout, 1},
	}
	for _, c := range cases {
		b := BottleneckOf(&Run{Failures: c.failures, Nodes: c.nodes})
		if b.Resource != c.res || b.Node != c.node || b.Text == "" {
			t.Errorf("%s: got %v on node %d (%q), want %v on node %d", c.name, b.Resource, b.Node, b.Text, c.res, c.node)
		}
		if b.Node >= 0 && (b.Peak != c.nodes[b.Node].Peak || b.Load != c.nodes[b.Node].Utilization) {
			t.Errorf("%s: loads %v/%v are not node %d's", c.name, b.Load, b.Peak, b.Node)
		}
	}
}
