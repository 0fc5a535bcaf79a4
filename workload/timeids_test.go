package workload

import (
	"testing"
)

const year = int64(365.25 * 24 * 3600 * 1e9)

// rowTimes returns n non-decreasing row times from -10 years (seed 12): increments are 0
// (same ns) a quarter of the time, otherwise up to 1 µs, 1 ms or 10 s, so that rows share
// nanoseconds, microseconds and milliseconds, and cross t = 0 and unit boundaries.
func rowTimes(n int) []int64 {
	r := newRand(12)
	ts := make([]int64, n)
	t := -10 * year
	for i := range ts {
		switch r.IntN(4) {
		case 1:
			t += r.Int64N(1000)
		case 2:
			t += r.Int64N(1_000_000)
		case 3:
			t += r.Int64N(20 * year / int64(n)) // reaches ≈ +10 years
		}
		ts[i] = t
	}
	return ts
}

// TestTimeOrdered checks, over 1e6 non-decreasing row times from -10 to +10 years:
// Snowflake and Sequence ids strictly increase (so they are unique, and a later row's id
// exceeds every earlier row's), Time values do not decrease; and each inverts:
// SnowflakeMillis(id) = floor(t/1e6), SequenceMicros(id) = floor(t/1e3), TimeOf(v) = t.
func TestTimeOrdered(t *testing.T) {
	sf, sq, tm := NewSnowflake(), NewSequence(), NewTime()
	for _, g := range []Generator{sf, sq, tm} {
		if i := g.Info(); !i.TimeOrdered || i.Cardinality != 0 {
			t.Fatalf("%T Info %+v", g, i)
		}
	}
	var pf, pq, pt uint64
	for i, ts := range rowTimes(1_000_000) {
		f, q, v := sf.Next(nil, ts), sq.Next(nil, ts), tm.Next(nil, ts)
		if i > 0 && (f <= pf || q <= pq || v < pt) {
			t.Fatalf("row %d at %d: not increasing: snowflake %d after %d, sequence %d after %d, time %d after %d",
				i, ts, f, pf, q, pq, v, pt)
		}
		if f >= 1<<63 || q >= 1<<63 {
			t.Fatalf("row %d: id above 2^63: %d %d", i, f, q)
		}
		if got, want := SnowflakeMillis(f), floorDiv(ts, 1e6); got != want {
			t.Fatalf("SnowflakeMillis(%d) = %d for t = %d, want %d", f, got, ts, want)
		}
		if got, want := SequenceMicros(q), floorDiv(ts, 1e3); got != want {
			t.Fatalf("SequenceMicros(%d) = %d for t = %d, want %d", q, got, ts, want)
		}
		if got := TimeOf(v); got != ts {
			t.Fatalf("TimeOf(%d) = %d, want %d", v, got, ts)
		}
		pf, pq, pt = f, q, v
	}
}

// TestTimeOrderedBursts: 5000 rows in one microsecond exceed the sequence's 1024 per µs,
// and 2^22 + 10 rows in one millisecond exceed the snowflake counter: the ids must still
// strictly increase, spilling into the next unit, and the first row of a later unit must
// still get a larger id. Also the epoch edge: t = -EpochOffset encodes as 0 / the smallest
// ids, one ns earlier panics.
func TestTimeOrderedBursts(t *testing.T) {
	sq := NewSequence()
	prev := uint64(0)
	for i := range 5000 {
		v := sq.Next(nil, 7_000)
		if i > 0 && v <= prev {
			t.Fatalf("sequence burst: id %d after %d", v, prev)
		}
		prev = v
	}
	if got := SequenceMicros(prev); got != 7+4 { // 5000 ids = 4 spilled µs after µs 7
		t.Errorf("sequence burst: last id in µs %d, want 11", got)
	}
	if v := sq.Next(nil, 8_000); v <= prev {
		t.Errorf("sequence: next µs id %d not above burst %d", v, prev)
	}

	sf := NewSnowflake()
	prev = 0
	for i := range 1<<22 + 10 {
		v := sf.Next(nil, 3_000_000)
		if i > 0 && v <= prev {
			t.Fatalf("snowflake burst: id %d after %d", v, prev)
		}
		prev = v
	}
	if got := SnowflakeMillis(prev); got != 4 {
		t.Errorf("snowflake burst: last id in ms %d, want 4 (spilled)", got)
	}
	if v := sf.Next(nil, 4_000_000); v <= prev {
		t.Errorf("snowflake: id %d not above burst %d", v, prev)
	}

	// Out of order: a row earlier than the previous call gets an id ordered by its time,
	// and does not disturb the in-order sequence.
	early := sf.Next(nil, 1_000_000)
	if SnowflakeMillis(early) != 1 || early >= prev {
		t.Errorf("out-of-order snowflake %d (ms %d)", early, SnowflakeMillis(early))
	}
	if v := sf.Next(nil, 4_000_000); v <= prev {
		t.Errorf("snowflake after out-of-order call: %d not above %d", v, prev)
	}

	if v := NewTime().Next(nil, -EpochOffset); v != 0 || TimeOf(v) != -EpochOffset {
		t.Errorf("Time at the epoch = %d", v)
	}
	if v := NewSnowflake().Next(nil, -EpochOffset); v != 0 {
		t.Errorf("Snowflake at the epoch = %d", v)
	}
	for _, g := range []Generator{NewTime(), NewSnowflake(), NewSequence()} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%T accepted a time before the epoch", g)
				}
			}()
			g.Next(nil, -EpochOffset-1)
		}()
	}
}
