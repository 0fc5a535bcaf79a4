package pool

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
)

func f64(x float64) *float64 { return &x }

// TestConnectionPool: requests that spend half their latency or more waiting for a
// connection, most of them waiting, are held by the pool; the cure depends on whether the
// busiest node had room (fullNodeLoad, 0.9, of its cores).
func TestConnectionPool(t *testing.T) {
	st := &metrics.Stream{Name: "get", Latency: metrics.Latency{Mean: f64(10)}}
	w := metrics.Wait{Name: "pool", Asked: 1000, Queued: 800, Share: 0.8, Mean: f64(8), P99: f64(30), Max: f64(40)}
	d, ok := connectionPool(metrics.Hottest{Load: 0.4}, st, w)
	if !ok || d.Kind != "connection_pool" || !strings.Contains(d.Message, "a larger pool lets them take the load") {
		t.Errorf("nodes at 40%%: %v %q, want connection_pool advising a larger pool", ok, d.Message)
	}
	if d, ok := connectionPool(metrics.Hottest{Load: 0.95}, st, w); !ok || !strings.Contains(d.Message, "would move the queue into the database") {
		t.Errorf("nodes at 95%%: %v %q, want the warning that a larger pool moves the queue", ok, d.Message)
	}
	short := w
	short.Mean = f64(2) // a fifth of the latency
	if _, ok := connectionPool(metrics.Hottest{Load: 0.4}, st, short); ok {
		t.Error("a wait of 20% of the latency: diagnosed, want no finding")
	}
}

// TestConnectionPoolRegistered: the rule is registered on the pool's wait, so that a
// variant whose requests wait mostly for a connection gets connection_pool from
// diagnose.Of.
func TestConnectionPoolRegistered(t *testing.T) {
	got := mechtest.Diagnose(metrics.Stream{Name: "get", Latency: metrics.Latency{Mean: f64(10)}, Waits: []metrics.Wait{
		{Name: "pool", Asked: 1000, Queued: 800, Share: 0.8, Mean: f64(8), P99: f64(30), Max: f64(40)}}})
	if len(got) != 1 || got[0].Kind != "connection_pool" || got[0].Subject != "get" {
		t.Errorf("diagnoses %+v, want connection_pool for get", got)
	}
}
