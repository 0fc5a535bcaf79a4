package trace

import "testing"

// TestLogScheduleLastWindow: a replayed log of 500 writes a second for 3 s and one more
// 0.1 ms past 3 s. Its last window (one record over a covered 0.1 ms, floored to 1 ms)
// read as 1,000/s, twice the log's rate, in explain's load and the request estimate; the
// schedule now has no point above 500/s, and ends at the log's end at rate 0. A last
// window covered more than half (0.6 s) keeps its rate over the part covered: 300
// records in 0.6 s, 500/s.
func TestLogScheduleLastWindow(t *testing.T) {
	sc := logSchedule([]int64{500, 500, 500, 1}, 1e9, 3_000_100_000, 1)
	for _, p := range sc {
		if p.Rate != 500 && p.Rate != 0 {
			t.Errorf("schedule %v: a point at %g/s, want 500/s (then 0 from the end)", sc, p.Rate)
		}
	}
	if last := sc[len(sc)-1]; last.Rate != 0 || last.At != 3_000_100_000 {
		t.Errorf("schedule %v: want it to end at the log's end, 3.0001 s, at rate 0", sc)
	}
	sc = logSchedule([]int64{500, 500, 500, 300}, 1e9, 3_600_000_000, 1)
	if p := sc[len(sc)-2]; p.At != 3_300_000_000 || p.Rate != 500 {
		t.Errorf("schedule %v: want a point at 3.3 s at 500/s", sc)
	}
}
