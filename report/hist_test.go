package report

import (
	"testing"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
)

// newHist returns a window histogram of 100 latencies of micros µs each.
func newHist(t *testing.T, micros int64) *hdrhistogram.Histogram {
	t.Helper()
	h := hdrhistogram.New(1, 10_000_000_000, 2)
	if err := h.RecordValues(micros, 100); err != nil {
		t.Fatal(err)
	}
	return h
}
