package metrics

import (
	"testing"

	"github.com/shardsim/shardsim/sim"
)

// TestRetriesOf reads a stream's retry span from its windows: the first and last windows
// with a retry, the busiest one (the first of a tie), and the stream's own total.
func TestRetriesOf(t *testing.T) {
	win := make([]sim.WindowLatency, 6)
	for w, n := range []int64{0, 0, 3, 9, 9, 0} {
		win[w].Retries = n
	}
	r := &sim.Result{Streams: []sim.StreamResult{{Retries: 21, Win: win}, {Win: make([]sim.WindowLatency, 6)}}}
	if got, want := RetriesOf(r, 0), (RetrySpan{Total: 21, First: 2, Last: 4, Peak: 3, PeakCount: 9}); got != want {
		t.Errorf("RetriesOf = %+v, want %+v", got, want)
	}
	if got, want := RetriesOf(r, 1), (RetrySpan{First: -1, Last: -1, Peak: -1}); got != want {
		t.Errorf("a stream without retries: RetriesOf = %+v, want %+v", got, want)
	}
}
