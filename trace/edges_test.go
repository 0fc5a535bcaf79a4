package trace_test

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/shardsim/shardsim/trace"
)

// TestTextKeysRankCorrelation: a key that grows with time is flagged monotonic however its
// order value jumps where a text leaves the log's first text earlier. An ISO-8601 log over
// three days (one record a minute, 4,320 lines) and the docs' key form
// (2025-11-27T08:00:01.234Z-17) over 74 s at an even rate (5,000 writes) both grow with
// every record, so their rank correlation with time is 1 up to ties (the test asks >=
// 0.99); fit then draws the ISO part as a time, not as uniform. A correlation of the order
// values themselves scored 0.61 and 0.68 here, under the 0.7 threshold.
func TestTextKeysRankCorrelation(t *testing.T) {
	var days bytes.Buffer
	days.WriteString("ts,op,key\n")
	start := time.Date(2025, 11, 27, 8, 0, 0, 0, time.UTC)
	for i := range 3 * 24 * 60 {
		fmt.Fprintf(&days, "%d,set,%s\n", 60*i, start.Add(time.Duration(i)*time.Minute).Format(time.RFC3339))
	}
	docs := textKeyLogAt("iso", 5000, 74, 5, func(i int) float64 { return 74 * float64(i) / 5000 })
	opt := trace.Options{Format: trace.CSV}
	for name, data := range map[string][]byte{"three days": days.Bytes(), "74 s of the docs' form": docs} {
		a := analyzeBytes(t, data, opt, trace.Config{Parts: true})
		m := a.Keys.Monotonic[0]
		if !m.Monotonic || m.Score < 0.99 {
			t.Errorf("%s: monotonic %v, score %.3f; want flagged, >= 0.99", name, m.Monotonic, m.Score)
		}
		fitted := trace.Fit(a, trace.FitOptions{Name: "fit"})
		if !strings.Contains(string(fitted.TOML), `key = { gen = "time" }`) {
			t.Errorf("%s: fit draws the key as %v, want a time", name, fitted.Fields)
		}
	}
}

// TestBusiestWindowTieIsTheLast: at an even rate (200 writes a second over 100 s) a ULID
// key under range over 4 shards fills every window of a second alike (200 writes, the
// 50 a shard that a window must hold), each on one shard: the splits fall every 500 keys
// of the log's first tenth (2,000 writes), so its first windows are each on one shard too,
// the first on shard 0. The window shown is the last of the equal ones, on the last shard,
// where every write past the splits goes; the first, shard 0 at 100%, was shown before, a
// hot spot the cluster sees only while the log's first keys are written.
func TestBusiestWindowTieIsTheLast(t *testing.T) {
	const shards = 4
	even := textKeyLogAt("ulid", 20_000, 100, 3, func(i int) float64 { return (float64(i) + 0.5) / 200 })
	ws := analyzeBytes(t, even, trace.Options{Format: trace.CSV}, trace.Config{Design: textRangeDesign(t, even, shards)}).Design.WriteSpread
	if ws.WindowS != 1 || ws.BusiestShard != shards-1 || ws.BusiestShare < 0.99 {
		t.Errorf("busiest window from %g s (windows of %g s): shard %d at %.4f, want the last shard (%d) at >= 0.99", ws.BusiestTS, ws.WindowS, ws.BusiestShard, ws.BusiestShare, shards-1)
	}
}

// TestCSVColumnsAsTheHeader: under the header ts,op,key a line with a fourth field
// ("7,set,user,7") is malformed, as one with two is: 1,000 such lines are 1,000
// malformed lines, not 1,000 writes of the key "user". A header that names a column twice
// is refused, naming the column.
func TestCSVColumnsAsTheHeader(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("ts,op,key\n")
	for i := range 1000 {
		fmt.Fprintf(&b, "%d,set,user,%d\n", i, i)
	}
	fmt.Fprintf(&b, "1000,set,user\n")
	a := analyzeBytes(t, b.Bytes(), trace.Options{Format: trace.CSV, MaxBad: -1}, trace.Config{})
	if a.Malformed != 1000 || a.Records != 1 {
		t.Errorf("%d records, %d malformed; want 1 and 1000", a.Records, a.Malformed)
	}
	if len(a.BadLines) == 0 || !strings.Contains(a.BadLines[0].Why, "4 columns, the header has 3") {
		t.Errorf("malformed lines %+v, want the first's reason to count its columns", a.BadLines)
	}
	_, err := trace.NewReader(strings.NewReader("ts,TS,op,key\n1,1,set,a\n"), trace.Options{Format: trace.CSV})
	if err == nil || !strings.Contains(err.Error(), `names column "ts" twice (columns 1 and 2`) {
		t.Errorf("a header naming ts twice: err %v, want it refused naming the column", err)
	}
}
