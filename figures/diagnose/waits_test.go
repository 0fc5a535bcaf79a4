package diagnose

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
)

func f64(x float64) *float64 { return &x }

// TestHotIndexPage: a page latch that 75% of the inserts found held is hot (the bar is
// hotLatchLoad, 0.7, the row lock's); one at 50% is not.
func TestHotIndexPage(t *testing.T) {
	st := &metrics.Stream{Name: "insert"}
	hot := metrics.Wait{Name: "page_latch", Asked: 1000, Queued: 750, Share: 0.75, Mean: f64(0.075), P99: f64(0.4), Max: f64(1)}
	d, ok := hotIndexPage(st, hot)
	if !ok || d.Kind != "hot_index_page" || d.Evidence["queued_share"] != 0.75 || !strings.Contains(d.Message, "salt bucket") {
		t.Errorf("75%% queued: %v %+v, want hot_index_page with its share and a salt as cure", ok, d)
	}
	cool := hot
	cool.Share = 0.5
	if _, ok := hotIndexPage(st, cool); ok {
		t.Error("50% queued: diagnosed, want no finding under hotLatchLoad")
	}
}

// TestConnectionPool: requests that spend half their latency or more waiting for a
// connection, most of them waiting, are held by the pool; the cure depends on whether the
// busiest node had room (burstPeakLoad, 0.9, of its cores).
func TestConnectionPool(t *testing.T) {
	st := &metrics.Stream{Name: "get", Latency: metrics.Latency{Mean: f64(10)}}
	w := metrics.Wait{Name: "pool", Asked: 1000, Queued: 800, Share: 0.8, Mean: f64(8), P99: f64(30), Max: f64(40)}
	f := &finding{Case: &Case{Run: &metrics.Run{Node: metrics.Hottest{Load: 0.4}}}}
	d, ok := f.connectionPool(st, w)
	if !ok || d.Kind != "connection_pool" || !strings.Contains(d.Message, "a larger pool lets them take the load") {
		t.Errorf("nodes at 40%%: %v %q, want connection_pool advising a larger pool", ok, d.Message)
	}
	f.Run.Node.Load = 0.95
	if d, ok := f.connectionPool(st, w); !ok || !strings.Contains(d.Message, "would move the queue into the database") {
		t.Errorf("nodes at 95%%: %v %q, want the warning that a larger pool moves the queue", ok, d.Message)
	}
	short := w
	short.Mean = f64(2) // a fifth of the latency
	if _, ok := f.connectionPool(st, short); ok {
		t.Error("a wait of 20% of the latency: diagnosed, want no finding")
	}
}
