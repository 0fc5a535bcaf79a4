package main

import (
	"strings"
	"testing"
	"time"
)

// TestPlainProgress: where stderr is not a terminal, progress is a plain line at most
// every interval, with the count, the total (marked ~ where it is an estimate), the time
// elapsed and the time left at the pace so far.
func TestPlainProgress(t *testing.T) {
	var b strings.Builder
	clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	now := func() time.Time { return clock }
	p := plainProgress(&b, "capacity runs", now, 30*time.Second)
	for done := 1; done <= 14; done++ {
		clock = clock.Add(10 * time.Second) // a run every 10 s: a line every third
		p(done, -40)
	}
	want := "capacity runs: 3 of ~40, 30s elapsed, ~6m10s left\n" +
		"capacity runs: 6 of ~40, 1m0s elapsed, ~5m40s left\n" +
		"capacity runs: 9 of ~40, 1m30s elapsed, ~5m10s left\n" +
		"capacity runs: 12 of ~40, 2m0s elapsed, ~4m40s left\n"
	if b.String() != want {
		t.Errorf("lines\n%s\nwant\n%s", b.String(), want)
	}
	b.Reset()
	p = plainProgress(&b, "sweep runs", now, 30*time.Second)
	clock = clock.Add(45 * time.Second)
	p(3, 12)
	p(4, 12) // within 30 s of the last line: nothing
	if got, want := b.String(), "sweep runs: 3 of 12, 45s elapsed, 2m15s left\n"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
