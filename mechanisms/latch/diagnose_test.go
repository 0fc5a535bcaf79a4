package latch

import (
	"strings"
	"testing"

	"github.com/shardsim/shardsim/figures/metrics"
	"github.com/shardsim/shardsim/mechanisms/mechtest"
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

// TestHotIndexPageRegistered: the rule is registered on the latch's wait, so that a
// variant whose page_latch wait is hot gets hot_index_page from diagnose.Of.
func TestHotIndexPageRegistered(t *testing.T) {
	got := mechtest.Diagnose(metrics.Stream{Name: "insert", Waits: []metrics.Wait{
		{Name: "page_latch", Asked: 1000, Queued: 750, Share: 0.75, Mean: f64(0.075), P99: f64(0.4), Max: f64(1)}}})
	if len(got) != 1 || got[0].Kind != "hot_index_page" || got[0].Subject != "insert" {
		t.Errorf("diagnoses %+v, want hot_index_page for insert", got)
	}
}
